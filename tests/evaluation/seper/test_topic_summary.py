"""SePer's summary on the topic page: SePer_S without context and Delta-SePer_S per context at
the latest setting, from stored rows."""

import pytest

from evaluation.seper.topic_summary import topic_summary
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = pytest.mark.django_db


def test_latest_setting_baseline_contexts_and_passages():
    data = make_summary_topics()
    summary = topic_summary(data.topic)
    assert not summary.empty and summary.has_gold
    assert (summary.generator, summary.nli) == ("g2", "n")  # g1's older row left out
    assert summary.baseline == pytest.approx(0.2)
    assert [(c.label, c.delta_s) for c in summary.contexts] == [
        ("bm25 top-2", pytest.approx(0.6)),
        ("Gold passages", pytest.approx(0.75)),
    ]
    assert (summary.n_passages, summary.n_helping) == (2, 1)
    assert summary.best.label == "Passage q1:0#0" and summary.worst.label == "Passage q1:0#3"
    assert summary.n_subquestions == 0


def test_a_topic_without_scores_is_empty_and_says_it_lacks_gold_answers():
    data = make_summary_topics()
    summary = topic_summary(data.bare)
    assert summary.empty and "this topic has none" in summary.empty_note
    data.bare.gold_answers = ["yes"]
    data.bare.save()
    assert topic_summary(data.bare).empty_note == ""  # only the job is missing
