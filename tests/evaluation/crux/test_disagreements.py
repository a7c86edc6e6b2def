"""The disagreements page: topics where coverage and nDCG / Recall order runs oppositely, by
impact, and LLM-vs-human cells across tau, by |difference|."""

import numpy as np
import pytest
from django.urls import reverse

from crux_app.models import Run, RunEntry
from evaluation.crux.evaluate import METRICS, Evaluation, EvaluationParams, RunResult
from evaluation.crux.page import topic_disagreements
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


def synthetic(per_run: dict[str, dict[str, list[float]]]) -> Evaluation:
    """An Evaluation over topics t0, t1, t2 with the given per-topic values (NaN elsewhere)."""
    runs = []
    for name, values in per_run.items():
        arrays = {m: np.array(values.get(m, [np.nan] * 3), dtype=float) for m in METRICS}
        runs.append(RunResult(name, arrays, np.zeros(3, int), [None] * 3, np.ones(3, bool)))
    return Evaluation(
        collection=None,
        params=EvaluationParams(),
        judge=None,
        qrels_source=None,
        topic_ids=np.array([10, 11, 12]),
        topic_names=["t0", "t1", "t2"],
        computed_oracle=np.zeros(3, bool),
        runs=runs,
    )


def test_topics_are_ordered_by_their_largest_flip():
    evaluation = synthetic(
        {
            # t0: a small flip on nDCG (0.1 + 0.1); t1: a large one (0.5 + 0.4); t2: agreement.
            "a": {"coverage": [0.6, 0.9, 0.5], "ndcg": [0.4, 0.1, 0.5], "recall": [0.5, 0.5, 0.5]},
            "b": {"coverage": [0.5, 0.4, 0.2], "ndcg": [0.5, 0.5, 0.1], "recall": [0.5, 0.5, 0.5]},
        }
    )
    rows = topic_disagreements(evaluation)
    assert [r.topic for r in rows] == ["t1", "t0"]
    assert rows[0].impact == pytest.approx(0.9)
    flip = rows[0].flips[0]
    assert (flip.metric, flip.ahead_by_coverage, flip.ahead_by_metric) == ("ndcg", "a", "b")
    # Two runs ordered oppositely: tau would be -1 whatever the scores, so it is not measured
    # (fewer than 4 runs); recall is constant: tau undefined, with a reason.
    ndcg = rows[0].taus["ndcg"]
    assert ndcg.tau is None and ndcg.too_few and "not measurable with 2 runs" in ndcg.reason
    assert rows[0].taus["recall"].tau is None and "constant" in rows[0].taus["recall"].reason


def test_undefined_values_never_make_a_flip():
    evaluation = synthetic(
        {
            "a": {"coverage": [np.nan, 0.9, 0.5], "ndcg": [0.4, np.nan, 0.5]},
            "b": {"coverage": [0.5, 0.4, 0.5], "ndcg": [0.5, 0.5, 0.1]},
        }
    )
    # t0 and t1 miss a value of run a; t2 has a coverage tie: no flip anywhere.
    assert topic_disagreements(evaluation) == []


def test_page_lists_flips_and_llm_human_cells(researcher_client):
    hand = make_hand_collection()
    ta = hand.topics["ta"]
    # Two runs on ta at k = 2: "wide" [p2, p1] covers q0 and q1 (coverage 1) with nDCG@2
    # (1 + 3/log2 3) / (3 + 3/log2 3) = 0.591; "deep" [p0, p3] covers q0 only (0.5) with
    # nDCG@2 3 / (3 + 3/log2 3) = 0.613: coverage and nDCG order them oppositely.
    for name, ranked in {"wide": ["p2", "p1"], "deep": ["p0", "p3"]}.items():
        run = Run.objects.create(collection=hand.collection, name=name)
        RunEntry.objects.bulk_create(
            RunEntry(run=run, topic=ta, passage=hand.passages[p], rank=i + 1, score=0, line_order=i)
            for i, p in enumerate(ranked)
        )
    page = reverse("crux-disagreements", args=[hand.collection.pk])
    response = researcher_client.get(page + "?k=2")
    assert response.status_code == 200
    rows = response.context["topic_rows"]
    top, link = rows[0]
    assert top.topic == "ta"
    flip = next(
        f for f in top.flips if {f.ahead_by_coverage, f.ahead_by_metric} == {"wide", "deep"}
    )
    assert (flip.metric, flip.ahead_by_coverage) == ("ndcg", "wide")
    assert link["url"] == reverse("topic-detail", args=[hand.collection.pk, ta.pk])
    assert all(a.impact >= b.impact for (a, _), (b, _) in zip(rows, rows[1:], strict=False))
    # LLM vs human across tau 3: p0 q0 4 vs 1 (|3|) first, then p1 q1 3 vs 2 (|1|); p2 q0
    # (5 vs 4) is on one side.
    cells = [c for c, _ in response.context["cell_rows"]]
    assert [(c.passage, c.position, c.difference) for c in cells] == [
        ("ta:0#0", 0, 3),
        ("ta:0#1", 1, 1),
    ]
    assert cells[0].llm_judge == "llm-judge" and cells[0].human_judge == "human-1"
    assert reverse("topic-detail", args=[hand.collection.pk, ta.pk]) in response.text


def test_disagreements_page_is_for_researchers_only(client, annotator):
    hand = make_hand_collection()
    client.force_login(annotator)
    assert client.get(reverse("crux-disagreements", args=[hand.collection.pk])).status_code == 403


def test_bad_k_is_a_400_naming_the_field(researcher_client):
    hand = make_hand_collection()
    page = reverse("crux-disagreements", args=[hand.collection.pk])
    response = researcher_client.get(page + "?k=-1")
    assert response.status_code == 400 and "k must be an integer" in response.text


def test_both_lists_are_paged_and_searched_by_topic(researcher_client):
    hand = make_hand_collection()
    page = reverse("crux-disagreements", args=[hand.collection.pk])
    response = researcher_client.get(page, {"k": 2, "cells-size": 25})
    assert response.status_code == 200
    assert "1–2 of 2 cells" in response.text and "The first" not in response.text
    assert response.context["cell_list"].size == 25
    none = researcher_client.get(page, {"k": 2, "cells-q": "no-such-topic"})
    assert none.context["cell_rows"] == [] and "No cells match" in none.text
    kept = researcher_client.get(page, {"k": 2, "cells-q": "TA"})
    assert [c.topic for c, _ in kept.context["cell_rows"]] == ["ta", "ta"]


@pytest.mark.parametrize(
    "query", [{"topics-page": "abc"}, {"cells-size": "3"}, {"cells-q": "\x01"}]
)
def test_bad_paging_of_either_list_is_a_400(researcher_client, query):
    hand = make_hand_collection()
    page = reverse("crux-disagreements", args=[hand.collection.pk])
    response = researcher_client.get(page, query)
    assert response.status_code == 400 and next(iter(query)) in response.text
