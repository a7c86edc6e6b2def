"""LLM-retEval's summary on the topic page: Recall@k, verdict and failure category per run."""

import pytest

from evaluation.reteval.topic_summary import topic_summary
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = pytest.mark.django_db


def test_verdict_and_failure_category_per_run_and_k():
    data = make_summary_topics()
    summary = topic_summary(data.topic)
    (row,) = summary.rows
    assert (row.run, row.k, row.judge, row.recall, row.verdict) == (
        "bm25",
        2,
        "judge-x",
        1.0,
        False,
    )
    assert row.category == "D" and "fails even on the gold passages" in row.category_description
    assert row.confirmed is None  # no human confirmed it yet
    assert row.url.endswith("/reteval/#result-bm25-2")
    assert summary.n_disagreeing == 1


def test_a_topic_without_results_is_empty():
    data = make_summary_topics()
    assert topic_summary(data.bare).empty
