"""SCAAR's summary on the topic page: triggers per analysed answer, against FLARE's."""

import pytest

from evaluation.scaar.models import ScaarAnalysis
from evaluation.scaar.topic_summary import topic_summary
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = pytest.mark.django_db


def test_triggers_flare_and_score_change_of_the_newest_analysis():
    data = make_summary_topics()
    newer = ScaarAnalysis.objects.get(pk=data.scaar.pk)
    newer.pk, newer.key, newer.n_retrievals = None, "s2", 1
    newer.save()  # a second analysis of the same answer, newer: it is the one shown
    summary = topic_summary(data.topic)
    (answer,) = summary.answers
    assert (answer.system, answer.output, answer.n_sentences) == ("rag-bm25", "rag-bm25_q1", 3)
    assert (answer.n_triggers, answer.flare_triggers) == (1, 3)
    assert answer.score_delta == pytest.approx(0.3) and answer.score_metric == "f1"
    assert answer.url.endswith(f"/scaar/answers/{newer.pk}/")
    assert summary.n_outputs == 1


def test_a_topic_without_answers_says_so():
    data = make_summary_topics()
    summary = topic_summary(data.bare)
    assert summary.empty and summary.n_outputs == 0 and "has none yet" in summary.empty_note
