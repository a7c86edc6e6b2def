"""The leaderboard recomputes what a write touched, not everything (crux_app.unit_cache).

A changed judgment changes the page's numbers, which are the numbers ``manage.py evaluate``
prints from the same rows; a write to one topic computes that topic's values again and reads
the others' from the cache (counted by ``unit_cache.COMPUTED``); a write that names no topic
computes every topic. The merged per-topic table stays equal to a whole computation through
writes that move the collection-wide parts (a new topic, a deleted one, report labels that
change the threshold every topic's reports are read with).
"""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from crux_app.models import GeneratedOutput, Judgment, SubQuestion
from crux_app.topic_counts import JUDGE_COUNTS, QREL_SOURCES
from crux_app.unit_cache import COMPUTED
from evaluation.crux.evaluate import (
    TOPIC_PART,
    Evaluation,
    EvaluationParams,
    evaluate,
    evaluate_cached,
)
from evaluation.crux.token_counts import WHITESPACE
from tests.crux_app.factories import make_topic, rate_passages
from tests.evaluation.crux.evaluate_collection import make_hand_collection
from tests.evaluation.leaderboard.test_cache_invalidation import command_records

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def hand():
    return make_hand_collection()


class Counted:
    """Topics computed per part since the last ``take``."""

    def __init__(self) -> None:
        self.seen = COMPUTED.copy()

    def take(self) -> dict[str, int]:
        now = COMPUTED.copy()
        parts = (TOPIC_PART, JUDGE_COUNTS, QREL_SOURCES)
        taken = {part: now[part] - self.seen[part] for part in parts}
        self.seen = now
        return taken


def page(client, hand, **query) -> dict[str, dict]:
    response = client.get(reverse("leaderboard", args=[hand.collection.pk]), {"k": 2, **query})
    assert response.status_code == 200, response.text[:500]
    return {r["run"]: r for r in response.context["board"].rows}


def rating_of(hand, topic: str, passage: str, position: int) -> Judgment:
    return Judgment.objects.get(
        judge=hand.llm,
        topic=hand.topics[topic],
        passage=hand.passages[passage],
        subquestion__position=position,
    )


def test_a_changed_judgment_changes_the_page_and_only_its_topic_is_computed(
    researcher_client, hand
):
    counted = Counted()
    before = page(researcher_client, hand)
    # Cold: every topic; warm: the board's cache (nothing asked of the unit cache).
    assert counted.take() == {TOPIC_PART: 3, JUDGE_COUNTS: 3, QREL_SOURCES: 3}
    assert page(researcher_client, hand) == before
    assert counted.take() == {TOPIC_PART: 0, JUDGE_COUNTS: 0, QREL_SOURCES: 0}

    judgment = rating_of(hand, "ta", "p0", 0)
    judgment.rating = 1  # no required passage answers q0 now: A of ta shrinks to {q1}
    judgment.save()
    after = page(researcher_client, hand)
    assert counted.take() == {TOPIC_PART: 1, JUDGE_COUNTS: 1, QREL_SOURCES: 1}
    assert after == command_records("--k", "2")
    assert after != before


def test_a_write_to_another_topic_computes_that_topic_only(researcher_client, hand):
    page(researcher_client, hand)
    counted = Counted()
    judgment = rating_of(hand, "tb", "b1", 1)
    judgment.rating = 1
    judgment.save()
    after = page(researcher_client, hand)
    assert counted.take() == {TOPIC_PART: 1, JUDGE_COUNTS: 1, QREL_SOURCES: 1}
    assert after == command_records("--k", "2")
    # Another judge's page: its own per-topic values, computed once, then kept.
    page(researcher_client, hand, judge="human-1")
    assert counted.take()[TOPIC_PART] == 3
    judgment.rating = 2
    judgment.save()
    page(researcher_client, hand, judge="human-1")
    assert counted.take()[TOPIC_PART] == 1


def test_a_write_that_names_no_topic_computes_every_topic(researcher_client, hand):
    page(researcher_client, hand)
    counted = Counted()
    passage = hand.passages["p3"]
    passage.text = "now a much longer text than it was before"
    passage.save()  # token counts of any topic may change: the epoch moves
    after = page(researcher_client, hand)
    assert counted.take() == {TOPIC_PART: 3, JUDGE_COUNTS: 3, QREL_SOURCES: 3}
    assert after == command_records("--k", "2")


def assert_same(merged: Evaluation, whole: Evaluation) -> None:
    assert merged.topic_ids.tolist() == whole.topic_ids.tolist()
    assert merged.topic_names == whole.topic_names
    assert merged.computed_oracle.tolist() == whole.computed_oracle.tolist()
    assert merged.rating_counts == whole.rating_counts
    assert (merged.judge, merged.qrels_source) == (whole.judge, whole.qrels_source)
    assert [r.name for r in merged.runs] == [r.name for r in whole.runs]
    for mine, theirs in zip(merged.runs, whole.runs, strict=True):
        for metric, values in theirs.values.items():
            np.testing.assert_allclose(mine.values[metric], values, atol=1e-12, err_msg=metric)
        assert mine.missing.tolist() == theirs.missing.tolist()
        assert mine.reasons == theirs.reasons
        assert mine.ranked.tolist() == theirs.ranked.tolist()
    for mine, theirs in zip(merged.reports, whole.reports, strict=True):
        assert (mine.system, mine.judge, mine.threshold) == (
            theirs.system,
            theirs.judge,
            theirs.threshold,
        )
        np.testing.assert_allclose(mine.coverage, theirs.coverage, atol=1e-12)
        assert (mine.has_report.tolist(), mine.missing) == (
            theirs.has_report.tolist(),
            theirs.missing,
        )
    assert merged.report_records() == whole.report_records()
    assert merged.records() == whole.records()


def test_the_merged_table_equals_a_whole_computation_through_every_kind_of_write(hand):
    params = EvaluationParams(judge="llm-judge", k=2, tokenizer=WHITESPACE)
    collection = hand.collection
    counted = Counted()

    def check(computed: int) -> Evaluation:
        merged = evaluate_cached(collection, params)
        assert counted.take()[TOPIC_PART] == computed
        whole = evaluate(collection, params)
        assert_same(merged, whole)
        return merged

    first = check(3)
    judgment = rating_of(hand, "tc", "c0", 0)
    judgment.rating = 5  # tc's only question becomes answerable
    judgment.save()
    check(1)
    judgment = rating_of(hand, "ta", "p1", 1)
    judgment.rating = 0  # the first topic: computed alone, merged back before the others
    judgment.save()
    check(1)
    # A new topic, rated and ranked: computed alone and merged in its place by id.
    td = make_topic(collection, "td", n_subquestions=2)
    rate_passages(hand.llm, td, [hand.passages["p4"]], rating=lambda pos, i: 4)
    check(1)
    # A label of r1's report on another topic that is not binary: every topic's r1 reports are
    # now read with tau, ta's (kept from the cache) included.
    output = GeneratedOutput.objects.create(
        collection=collection, topic=hand.topics["tb"], external_id="r1_tb", system="r1"
    )
    question = SubQuestion.objects.get(topic=hand.topics["tb"], position=0)
    Judgment.objects.create(
        judge=hand.human,
        topic=hand.topics["tb"],
        subquestion=question,
        output=output,
        task=Judgment.Task.REPORT_COVERAGE,
        rating=4,
    )
    merged = check(1)
    thresholds = {r["system"]: r["threshold"] for r in first.report_records()}
    assert thresholds == {"r1": 1.0, "r2": 1.0}
    thresholds = {r["system"]: r["threshold"] for r in merged.report_records()}
    assert thresholds == {"r1": params.tau, "r2": 1.0}
    td.delete()  # no topic moves: the table drops it
    check(0)
