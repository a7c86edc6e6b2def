"""What the matrix page ships for its hover and keyboard: every judge's rating of every cell,
each column's passage id, rank and grade, axis labels past the top-k, and the cells the ``n``
key visits."""

import numpy as np
import pytest

from evaluation.crux.matrix.figure import column_tick, column_ticks
from evaluation.crux.matrix.matrix import (
    NOT_JUDGED,
    UNPARSABLE,
    Disagreement,
    MatrixColumn,
    RunChoice,
    TopicMatrix,
)
from tests.evaluation.crux.matrix_seed import make_matrix_topic
from tests.evaluation.crux.test_matrix import matrix_url, shipped

pytestmark = pytest.mark.django_db

NJ, UP = NOT_JUDGED, UNPARSABLE


@pytest.fixture
def hand():
    return make_matrix_topic()


def test_every_judge_rating_of_every_cell_is_shipped(researcher_client, hand):
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2)))
    # Columns p3, p1, p0, p4, p2; rows at positions 0, 1 and 3.
    assert [j["name"] for j in data["judges"]] == ["annotator1", "llm-a", "llm-b"]
    assert [j["kind"] for j in data["judges"]] == ["human", "llm", "llm"]
    human, llm_a, llm_b = data["ratings"]
    assert llm_a == [[0, 5, 4, 1, NJ], [3, 2, 4, 0, NJ], [UP, 4, 1, 2, NJ]]
    assert llm_b == [[3, NJ, 3, NJ, NJ], [NJ] * 5, [NJ] * 5]
    assert human == [[NJ, 1, NJ, NJ, 2], [NJ, NJ, 3, NJ, NJ], [NJ, 4, NJ, NJ, NJ]]
    # The selected judge's ratings are the heatmap's.
    assert data["ratings"][1] == data["figure"]["data"][0]["z"]


def test_columns_carry_passage_rank_and_grade(researcher_client, hand):
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2)))
    assert data["run"] == "bm25"
    first, _, third, _, last = data["columns"]
    assert (first["passage"], first["rank"], first["grade"]) == (
        "m1:0#3",
        1,
        "fully redundant (1)",
    )
    assert (third["passage"], third["rank"], third["grade"]) == ("m1:0#0", 3, "required (3)")
    assert (last["passage"], last["rank"]) == ("m1:0#2", None)  # judged, not in the run


def test_attention_cells_in_reading_order_with_the_reason(researcher_client, hand):
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2, tau=3)))
    assert data["attention"] == [
        [0, 1, "human: other side of tau"],
        [0, 4, "not judged; human rating only"],
        [1, 2, "human: other rating"],
        [1, 4, "not judged"],
        [2, 0, "unparsable"],
        [2, 4, "not judged"],
    ]
    html = researcher_client.get(matrix_url(hand.topic, k=2)).content.decode()
    assert 'tabindex="0"' in html and "(6 here)" in html


def test_disagreement_marks_leave_the_hover_to_the_cell(researcher_client, hand):
    data = shipped(researcher_client.get(matrix_url(hand.topic, k=2)))
    marks = [t for t in data["figure"]["data"] if t["type"] == "scatter"]
    assert marks and all(t["hoverinfo"] == "skip" for t in marks)


def _wide(n_topk: int, n_judged: int, n_required: int) -> TopicMatrix:
    groups = ["topk"] * n_topk + ["judged"] * n_judged + ["required"] * n_required
    columns = [
        MatrixColumn(
            passage_id=i,
            external_id=f"msmarco_v2.1_doc_{i:04d}#7_1234",
            group=group,
            run_position=i + 1 if group == "topk" else None,
            grade=None,
            grade_source=None,
        )
        for i, group in enumerate(groups)
    ]
    codes = np.zeros((1, len(columns)), np.int8)
    return TopicMatrix(
        topic=None,
        judge=None,
        run=RunChoice(1, "bm25"),
        tau=3,
        k=n_topk,
        rows=[],
        columns=columns,
        codes=codes,
        disagreement=np.full(codes.shape, Disagreement.NONE, np.int8),
        n_topk=n_topk,
    )


def test_wide_matrices_label_every_block_past_the_top_k():
    matrix = _wide(n_topk=20, n_judged=250, n_required=30)
    ticks = column_ticks(matrix)
    assert len(ticks) < 100  # thinned: a few pixels per column
    # The first and last column of each block are labelled, and the judged block in between.
    assert {0, 19, 20, 269, 270, 299} <= set(ticks)
    assert any(20 < t < 269 for t in ticks)
    assert column_tick(matrix, 0) == "#1"
    assert column_tick(matrix, 20) == "…20#7_1234"  # the end of a long passage id
    narrow = _wide(n_topk=3, n_judged=2, n_required=1)
    assert column_ticks(narrow) == list(range(6))
