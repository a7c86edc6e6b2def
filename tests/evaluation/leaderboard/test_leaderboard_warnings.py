"""The leaderboard says when its judge gives (nearly) one rating and when every run ties on a
column, names the judge, links to its numbers, and still shows every number."""

import re

import pytest
from django.urls import reverse

from evaluation.leaderboard.columns import COLUMN_GROUPS, RunColumn
from tests.evaluation.crux.degenerate_collection import FLAT, SPREAD

pytestmark = pytest.mark.django_db


def board(client, flat, **params) -> str:
    response = client.get(reverse("leaderboard", args=[flat.collection.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def warnings_of(html: str) -> dict[str, list[str]]:
    """kind -> the text of each warning of that kind."""
    out: dict[str, list[str]] = {}
    for kind, body in re.findall(
        r'<li class="judge-warning" data-kind="([^"]+)"[^>]*>(.*?)</li>', html, re.S
    ):
        out.setdefault(kind, []).append(re.sub(r"<[^>]+>", "", body).strip())
    return out


def test_a_degenerate_judge_and_the_ties_it_makes_are_stated(researcher_client, flat):
    html = board(researcher_client, flat, k=2, judge=FLAT)  # (the default: the annotator)
    found = warnings_of(html)
    (constant,) = found["constant_ratings"]
    assert "flat-llm gave 4 to 29 of 30 items in flat (97%)" in constant
    assert any(
        "Every run scores 1.0000 on Coverage@2 under flat-llm (2 runs)" in w
        for w in found["tied_runs"]
    )
    assert not any(" on nDCG@2 " in w for w in found["tied_runs"])  # the runs differ there
    # The link opens the judge's ratings on the matrix; the tie links the table.
    matrix = reverse("crux-topic", args=[flat.collection.pk, flat.topic.pk])
    assert f'href="{matrix}?judge={flat.judges[FLAT].pk}"' in html
    assert 'href="#leaderboard-table"' in html
    # Nothing is hidden: both runs' coverage is in the table.
    table = html[html.index('id="leaderboard-table"') :]
    assert table.count(">1.0000<") >= 2


def test_an_informative_judge_gets_no_warning(researcher_client, flat):
    html = board(researcher_client, flat, k=2, judge=SPREAD)
    found = warnings_of(html)
    assert "constant_ratings" not in found
    assert not any("Coverage@2" in w for w in found.get("tied_runs", []))


def test_a_registered_column_tied_across_runs_is_warned_without_a_judge(researcher_client, flat):
    COLUMN_GROUPS.register(
        RunColumn("same", "Same", lambda c, p, names: dict.fromkeys(names, 0.25))
    )
    try:
        html = board(researcher_client, flat, k=2, judge=SPREAD)
    finally:
        COLUMN_GROUPS.unregister("same")
    (same,) = [w for w in warnings_of(html)["tied_runs"] if "on Same" in w]
    assert "Every run scores 0.2500 on Same (2 runs)" in same and "under" not in same


def test_one_run_is_never_a_tie(researcher_client, flat):
    flat.r2.delete()
    html = board(researcher_client, flat, k=2, judge=FLAT)
    assert "tied_runs" not in warnings_of(html)
    assert "constant_ratings" in warnings_of(html)
