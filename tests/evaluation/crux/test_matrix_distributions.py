"""Rating distributions on the coverage matrix: cells coloured by the expected rating on request
(a bounded selector: garbage is a 400), and the cell panel listing the six probabilities, the
expected rating and the entropy."""

import json
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from django.urls import reverse

from evaluation.crux.matrix.distributions import expected_ratings
from evaluation.crux.matrix.matrix import NOT_JUDGED, build_matrix, matrix_options
from evaluation.crux.method.rating_distribution import stored_distribution
from tests.evaluation.crux.degenerate_collection import DIST, FLAT, make_flat_collection

pytestmark = pytest.mark.django_db


@pytest.fixture
def flat():
    return make_flat_collection()


def matrix(client, flat, **params):
    url = reverse("crux-topic", args=[flat.collection.pk, flat.topic.pk])
    return client.get(f"{url}?{urlencode(params)}")


def heatmap(response) -> dict:
    html = response.content.decode()
    match = re.search(
        r'<script id="matrix-data" type="application/json">(.*?)</script>', html, re.S
    )
    return json.loads(match.group(1))["figure"]["data"][0]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ([0.5, 0.5], None),  # not six
        ([0, 0, 0, 0, 0, 0], None),  # no mass
        ([1, 0, 0, 0, 0, -0.1], None),
        ([1, 0, 0, 0, 0, float("nan")], None),
        (["1", 0, 0, 0, 0, 0], None),
        ([True, 0, 0, 0, 0, 0], None),
        ({"0": 1}, None),
        ([2, 0, 0, 0, 0, 2], [0.5, 0, 0, 0, 0, 0.5]),  # renormalised
    ],
)
def test_a_stored_distribution_is_read_or_refused(value, expected):
    result = stored_distribution(value)
    assert (result is None) if expected is None else (result == pytest.approx(expected))


def test_expected_ratings_of_the_cells_with_a_distribution(flat):
    options = matrix_options(flat.topic)
    dist = options.judge(flat.judges[DIST].pk)
    m = build_matrix(flat.topic, options, dist, options.default_run)
    expected = expected_ratings(m)
    assert expected is not None and expected.shape == (3, 10)
    assert expected[0, 0] == pytest.approx(4.0) and expected[1, 0] == pytest.approx(0.5)
    assert expected[2, 0] == pytest.approx(0.0) and expected[0, 1] == pytest.approx(2.5)
    assert int(np.isnan(expected).sum()) == 30 - 4
    # A judge without distributions has none to show.
    plain = options.judge(flat.judges[FLAT].pk)
    assert expected_ratings(build_matrix(flat.topic, options, plain, None)) is None


def test_the_matrix_colours_by_expected_rating_on_request(researcher_client, flat):
    dist = flat.judges[DIST].pk
    by_rating = matrix(researcher_client, flat, judge=dist)
    html = by_rating.content.decode()
    assert by_rating.status_code == 200 and heatmap(by_rating)["name"] == "ratings"
    assert '<option value="expected">expected rating</option>' in html  # offered, not chosen
    response = matrix(researcher_client, flat, judge=dist, colour="expected")
    assert response.status_code == 200
    trace = heatmap(response)
    assert trace["name"] == "expected ratings"
    assert trace["z"][0][0] == 4.0 and trace["z"][1][0] == 0.5 and trace["z"][0][1] == 2.5
    assert trace["text"][0][0] == "expected rating 4.00 (rating 5)"
    assert trace["z"][0][2] == NOT_JUDGED and trace["text"][0][2] == "not judged"
    assert (trace["zmin"], trace["zmax"]) == (NOT_JUDGED - 0.5, 5.5)
    positions = [stop for stop, _ in trace["colorscale"]]
    assert positions == sorted(positions) and positions[0] == 0 and positions[-1] == 1
    html = response.content.decode()
    assert 'id="expected-note"' in html and '<option value="expected" selected>' in html


def test_expected_colour_without_distributions_shows_the_ratings_and_says_so(
    researcher_client, flat
):
    response = matrix(researcher_client, flat, judge=flat.judges[FLAT].pk, colour="expected")
    assert response.status_code == 200 and heatmap(response)["name"] == "ratings"
    html = response.content.decode()
    assert 'id="no-distributions"' in html and "flat-llm stores no rating distributions" in html
    assert "expected rating (no distributions)" in html


@pytest.mark.parametrize("garbage", ["expectedx", "²", "1\x00", "x" * 5000, "RATING"])
def test_a_garbage_colour_is_a_400_naming_the_field(researcher_client, flat, garbage):
    response = matrix(researcher_client, flat, colour=garbage)
    assert response.status_code == 400
    assert "colour" in response.content.decode()


def open_cell(client, flat, position, index, **extra):
    sq = flat.topic.subquestions.get(position=position)
    url = reverse("crux-topic-cell", args=[flat.collection.pk, flat.topic.pk])
    query = {"sq": sq.pk, "passage": flat.passages[index].pk, **extra}
    response = client.get(f"{url}?{urlencode(query)}")
    assert response.status_code == 200
    return response.content.decode()


def test_the_cell_panel_lists_the_distribution(researcher_client, flat):
    html = open_cell(researcher_client, flat, 0, 1, judge=flat.judges[DIST].pk)
    table = html[html.index('aria-label="Rating distribution of dist-llm"') :]
    table = table[: table.index("</table>")]
    probabilities = re.findall(r'<td class="num">([0-9.]+)</td>', table)
    assert probabilities == ["0.167"] * 6
    assert re.findall(r'data-rating="(\d)"', table) == ["0", "1", "2", "3", "4", "5"]
    assert 'class="expected-rating">2.50<' in html
    assert 'class="distribution-entropy">1.00<' in html
    assert html.count("rating-distribution") == 1  # flat-llm and the others have none


def test_a_sure_distribution_has_entropy_0(researcher_client, flat):
    html = open_cell(researcher_client, flat, 2, 0)
    assert 'class="expected-rating">0.00<' in html
    assert 'class="distribution-entropy">0.00<' in html
