"""The matrix's faster reads and writes give what the slower ones gave: the judge selector's
counts (Judge.objects.for_topic), the ratings array, the expected ratings without their query,
and the payload's <script> block (Django's json_script)."""

import numpy as np
import pytest
from django.utils.html import json_script

from crux_app.models import GeneratedOutput, Judge, Judgment
from evaluation.crux.matrix.distributions import expected_ratings
from evaluation.crux.matrix.matrix import build_matrix, matrix_options
from evaluation.crux.matrix.payload import payload_script
from evaluation.crux.matrix.stored import (
    PASSAGE_RATING,
    UNPARSABLE,
    external_ids,
    judgment_array,
    rating_rows,
)
from tests.evaluation.crux.degenerate_collection import DIST, FLAT, make_flat_collection
from tests.evaluation.crux.matrix_seed import LLM_A, make_matrix_topic

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "payload",
    [
        {"a": "</script><script>alert(1)</script>", "b": "x & y <b>", "c": [1, 2.5, None]},
        {"label": "0. Is <b>this</b> & that bold? ●○–… é", "nested": {"k": ["<", ">", "&"]}},
        {"empty": [], "text": "plain", "t": True},
    ],
)
def test_payload_script_is_byte_for_byte_djangos_json_script(payload):
    assert payload_script(payload, "matrix-data") == json_script(payload, "matrix-data")
    assert str(payload_script(payload, "a&b")) == str(json_script(payload, "a&b"))


def test_judge_counts_match_the_judge_querys_including_rows_without_a_passage():
    hand = make_matrix_topic()
    # A passage-rating row pointing at an output: the selector always counted it, the matrix
    # never showed it.
    output = GeneratedOutput.objects.create(
        collection=hand.topic.collection,
        topic=hand.topic,
        external_id="gen-1",
        system="gen",
        text="An answer.",
    )
    Judgment.objects.create(
        judge=hand.llm_b,
        topic=hand.topic,
        subquestion=hand.subquestions[0],
        output=output,
        task=PASSAGE_RATING,
        rating=2,
    )
    expected = [
        (j.pk, j.name, j.kind, j.n_judgments)
        for j in Judge.objects.for_topic(hand.topic.pk, PASSAGE_RATING)
    ]
    got = [(j.id, j.name, j.kind, j.n_judgments) for j in matrix_options(hand.topic).judges]
    assert got == expected
    assert dict((j[1], j[3]) for j in got)["llm-b"] == 3
    # llm-a 12 (one unparsable) + 1 on the placeholder, llm-b 2, annotator1 4; not the output's.
    assert rating_rows(hand.topic).shape == (20, 5)
    judged = judgment_array(hand.topic)
    assert (judged[:, 2] > 0).all() and judged.shape == (19, 4)


def test_the_ratings_array_holds_every_rating_and_unparsable_ones():
    hand = make_matrix_topic()
    rows = rating_rows(hand.topic)
    mine = rows[rows[:, 0] == hand.llm_a.pk]
    by_cell = {
        (int(sq), int(p)): int(r)
        for _, sq, p, r, _ in mine.tolist()
        if sq != hand.subquestions[2].pk
    }
    index = {p.pk: i for i, p in enumerate(hand.passages)}
    position = {sq.pk: pos for pos, sq in hand.subquestions.items()}
    got = {(position[sq], index[p]): r for (sq, p), r in by_cell.items()}
    want = {
        (pos, i): UNPARSABLE if r is None else r
        for pos, row in LLM_A.items()
        for i, r in row.items()
    }
    assert got == want
    assert not rows[:, 4].any()  # no judgment of this topic stores a distribution


def test_expected_ratings_skip_their_query_when_the_judge_stores_no_distribution(
    django_assert_num_queries,
):
    flat = make_flat_collection()
    options = matrix_options(flat.topic)
    ratings = rating_rows(flat.topic)
    plain = build_matrix(flat.topic, options, options.judge(flat.judges[FLAT].pk), None)
    with django_assert_num_queries(0):
        assert expected_ratings(plain, ratings) is None
    assert expected_ratings(plain) is None  # the query finds none either
    dist = build_matrix(flat.topic, options, options.judge(flat.judges[DIST].pk), None)
    with_rows, without = expected_ratings(dist, ratings), expected_ratings(dist)
    assert with_rows is not None
    np.testing.assert_array_equal(with_rows, without)


def test_external_ids_of_no_passage_and_of_some():
    hand = make_matrix_topic()
    assert external_ids([]) == {}
    p = hand.passages
    assert external_ids([p[0].pk, p[3].pk]) == {
        p[0].pk: p[0].external_id,
        p[3].pk: p[3].external_id,
    }
