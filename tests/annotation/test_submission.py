"""Submitting: stored once, counted once, mirrored into judgments for tasks 1 and 2."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment, CampaignItem
from annotation.queue import queue, reservations
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from annotation.workspace.submission import submit
from crux_app.dataio.export_labels import export_labels
from crux_app.models import Judge, Judgment

from .campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db

RATING = {"rating": 4, "rationale": "Passage 0", "rationale_start": 0, "rationale_end": 9}


def test_a_double_submit_stores_once_and_counts_once():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=2, annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    first = submit(assignment, RATING, 1500)
    second = submit(assignment, {**RATING, "rating": 1}, 10)
    assert (first.stored, second.stored) == (True, False)
    assignment.refresh_from_db()
    assert assignment.answer["rating"] == 4 and assignment.time_spent_ms == 1500
    item = CampaignItem.objects.get(pk=assignment.item_id)
    assert (item.annotations_done, item.reserved_count) == (1, 0)
    assert Judgment.objects.count() == 1


def test_passage_rating_is_mirrored_as_a_judgment_of_the_annotators_human_judge():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    submit(assignment, RATING, 2000)
    judge = Judge.objects.get(user=anna)
    assert (judge.name, judge.kind) == ("user:anna", Judge.Kind.HUMAN)
    judgment = Judgment.objects.get(judge=judge)
    item = assignment.item
    assert (judgment.subquestion_id, judgment.passage_id, judgment.topic_id) == (
        item.subquestion_id,
        item.passage_id,
        item.topic_id,
    )
    assert (judgment.task, judgment.rating, judgment.rationale) == (
        "passage_rating",
        4,
        "Passage 0",
    )
    assert (judgment.rationale_start, judgment.rationale_end, judgment.time_spent_ms) == (
        0,
        9,
        2000,
    )


def test_report_coverage_is_mirrored_per_subquestion_and_exports_as_qlabels(tmp_path):
    anna = make_annotator("anna")
    campaign = make_campaign(REPORT_COVERAGE, overlap=1, annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    answer = {
        "answers": [
            {"position": 0, "answerable": 1, "span": "Floods hit the delta.", "span_start": 0,
             "span_end": 21},
            {"position": 2, "answerable": 0, "span": "", "span_start": None, "span_end": None},
        ]
    }  # fmt: skip
    submit(assignment, answer, 3000)
    rows = Judgment.objects.filter(judge__user=anna).order_by("subquestion__position")
    assert [(j.subquestion.position, j.rating, j.rationale) for j in rows] == [
        (0, 1, "Floods hit the delta."),
        (2, 0, ""),
    ]
    assert {j.output_id for j in rows} == {assignment.item.output_id}
    assert [j.time_spent_ms for j in rows] == [1500, 1500]
    # export_labels sees campaign labels like imported ones.
    out = tmp_path / "anna.jsonl"
    export_labels(campaign.collection.name, "user:anna", "qlabels", out)
    line = out.read_text()
    assert '"answerability": [1, -2, 0]' in line and "Floods hit the delta." in line


@pytest.mark.parametrize(
    ("task_type", "answer"),
    [(ANSWER_EQUIVALENCE, {"equivalent": True}), (FAILURE_CATEGORY, {"category": "D"})],
)
def test_tasks_three_and_four_store_answers_readable_through_labels(task_type, answer):
    anna = make_annotator("anna")
    campaign = make_campaign(task_type, overlap=1, annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    submit(assignment, answer, 800)
    assert not Judgment.objects.exists()
    rows = list(Assignment.objects.labels(task_type))
    assert len(rows) == 1
    row = rows[0]
    assert (row["answer"], row["annotator_name"], row["output_id"]) == (
        answer,
        "anna",
        assignment.item.output_id,
    )
    if task_type == FAILURE_CATEGORY:
        assert row["reference_output_id"] == assignment.item.reference_output_id
        assert list(Assignment.objects.failure_category_labels()) == rows
    else:
        assert list(Assignment.objects.equivalence_labels()) == rows


def test_a_late_submit_after_expiry_is_still_stored():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(overlap=1, reservation_seconds=60, annotators=[anna, ben])
    held = queue.next_item(campaign, anna).assignment
    later = timezone.now() + timedelta(seconds=120)
    reservations.release_expired(campaign.pk, later)
    result = submit(held, RATING, 5000, now=later)
    assert result.stored
    item = CampaignItem.objects.get(pk=held.item_id)
    assert (item.annotations_done, item.reserved_count) == (1, 0)


def test_submitted_time_is_clamped_and_defaults_to_time_since_reservation():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    a = queue.next_item(campaign, anna).assignment
    submit(a, RATING, None, now=a.reserved_at + timedelta(seconds=7))
    a.refresh_from_db()
    assert a.time_spent_ms == 7000
