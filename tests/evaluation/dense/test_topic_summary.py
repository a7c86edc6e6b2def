"""DENSE's summary on the topic page: the newest result per (run, k) and its chunk labels."""

import pytest

from evaluation.dense.topic_summary import topic_summary
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = pytest.mark.django_db


def test_newest_result_per_run_and_k_with_chunk_label_counts():
    data = make_summary_topics()
    summary = topic_summary(data.topic)
    (row,) = summary.rows
    assert (row.run, row.k, row.dse, row.uncertain, row.correct) == ("bm25", 2, 0.9, True, False)
    assert row.labels == [("necessary", 1), ("unnecessary", 2)]
    assert row.url.endswith(f"/dense/?result={data.dense_newest.pk}")


def test_a_topic_without_results_is_empty():
    data = make_summary_topics()
    assert topic_summary(data.bare).empty
