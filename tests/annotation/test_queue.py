"""The queue: overlap, least-annotated first, cap, reservations, skip, resume, prefetch, QC."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.campaigns.setup import SelectionOptions
from annotation.models import Assignment, Campaign, CampaignItem
from annotation.queue import queue, reservations
from annotation.workspace.drafts import save_draft
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db


def rate(assignment, rating=3, **kwargs):
    return submit(assignment, {"rating": rating, "rationale": ""}, 1000, **kwargs)


def work_through(campaign, user, limit=100):
    """Submit everything the queue hands ``user``; the item ids in order."""
    done = []
    for _ in range(limit):
        result = queue.next_item(campaign, user)
        if result.assignment is None:
            return done, result.reason
        rate(result.assignment)
        done.append(result.assignment.item_id)
    raise AssertionError("the queue never ran dry")


def test_least_annotated_first_and_never_the_same_item_twice():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(
        overlap=2,
        assignment_policy=Campaign.AssignmentPolicy.COVERAGE_FIRST,
        annotators=[anna, ben],
    )
    first = queue.next_item(campaign, anna).assignment
    # Ben gets an untouched item, not the one Anna holds.
    second = queue.next_item(campaign, ben).assignment
    assert first.item_id != second.item_id
    rate(first)
    again = queue.next_item(campaign, anna).assignment
    assert again.item_id not in (first.item_id, second.item_id)


def test_overlap_two_gives_both_annotators_every_item_and_a_third_nothing():
    anna, ben, cleo = (make_annotator(n) for n in ("anna", "ben", "cleo"))
    campaign = make_campaign(overlap=2, annotators=[anna, ben, cleo])
    n_items = campaign.items.count()
    anna_items, reason = work_through(campaign, anna)
    assert reason == queue.EXHAUSTED and len(anna_items) == n_items
    ben_items, _ = work_through(campaign, ben)
    assert sorted(ben_items) == sorted(anna_items)
    assert work_through(campaign, cleo) == ([], queue.EXHAUSTED)
    assert set(campaign.items.values_list("annotations_done", flat=True)) == {2}
    assert set(campaign.items.values_list("reserved_count", flat=True)) == {0}


def test_resume_returns_the_live_reservation_and_prefetch_a_second_one():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    current = queue.next_item(campaign, anna).assignment
    assert queue.next_item(campaign, anna).assignment == current
    prefetched = queue.next_item(campaign, anna, after=current.pk).assignment
    assert prefetched.item_id != current.item_id
    # Asking again for the prefetch does not reserve a third item.
    assert queue.next_item(campaign, anna, after=current.pk).assignment == prefetched
    assert Assignment.objects.filter(annotator=anna, state="reserved").count() == 2
    # Coming back resumes the oldest reservation; after submitting it, the prefetched one.
    assert queue.next_item(campaign, anna).assignment == current
    rate(current)
    assert queue.next_item(campaign, anna).assignment == prefetched


def test_cap_limits_ordinary_items_per_annotator():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, per_annotator_cap=3, annotators=[anna])
    done, reason = work_through(campaign, anna)
    assert len(done) == 3 and reason == queue.CAP_REACHED


def test_cap_counts_the_prefetched_reservation():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, per_annotator_cap=1, annotators=[anna])
    current = queue.next_item(campaign, anna).assignment
    result = queue.next_item(campaign, anna, after=current.pk)
    assert result.assignment is None and result.reason == queue.CAP_REACHED


def test_expired_reservation_is_released_lazily_and_requeued():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(overlap=1, reservation_seconds=60, annotators=[anna, ben])
    campaign.items.exclude(pk=campaign.items.order_by("id").first().pk).delete()
    held = queue.next_item(campaign, anna).assignment
    assert queue.next_item(campaign, ben).reason == queue.EXHAUSTED
    later = timezone.now() + timedelta(seconds=61)
    taken = queue.next_item(campaign, ben, now=later).assignment
    assert taken.item_id == held.item_id
    held.refresh_from_db()
    assert held.state == Assignment.State.EXPIRED
    item = CampaignItem.objects.get(pk=held.item_id)
    assert (item.reserved_count, item.annotations_done) == (1, 0)


def test_expired_item_comes_back_to_its_annotator_with_the_draft():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, reservation_seconds=60, annotators=[anna])
    campaign.items.exclude(pk=campaign.items.order_by("id").first().pk).delete()
    held = queue.next_item(campaign, anna).assignment
    save_draft(held, {"rating": "4"})
    later = timezone.now() + timedelta(seconds=120)
    back = queue.next_item(campaign, anna, now=later).assignment
    assert back.pk == held.pk and back.draft == {"rating": "4"}
    assert back.state == Assignment.State.RESERVED and back.reserved_until > later


def test_saving_a_draft_extends_the_reservation():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, reservation_seconds=60, annotators=[anna])
    held = queue.next_item(campaign, anna).assignment
    soon = timezone.now() + timedelta(seconds=50)
    assert save_draft(held, {"rating": "2"}, now=soon)
    held.refresh_from_db()
    assert held.reserved_until == soon + timedelta(seconds=60)


def test_skip_gives_the_item_to_others_and_back_to_the_skipper_last():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(overlap=1, annotators=[anna, ben])
    skipped = queue.next_item(campaign, anna).assignment
    assert reservations.skip(skipped) is True
    assert reservations.skip(skipped) is False  # a repeated skip changes nothing
    assert CampaignItem.objects.get(pk=skipped.item_id).reserved_count == 0
    # Anna gets everything else first.
    anna_items = []
    while (result := queue.next_item(campaign, anna)).assignment:
        if result.assignment.item_id == skipped.item_id:
            break
        rate(result.assignment)
        anna_items.append(result.assignment.item_id)
    assert len(anna_items) == campaign.items.count() - 1
    assert result.assignment.item_id == skipped.item_id  # offered again once nothing else is left


def test_a_skipped_item_goes_to_the_next_annotator():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(overlap=1, annotators=[anna, ben])
    skipped = queue.next_item(campaign, anna).assignment
    reservations.skip(skipped)
    assert queue.next_item(campaign, ben).assignment.item_id == skipped.item_id


@pytest.mark.parametrize(
    ("state", "reason"), [(Campaign.State.PAUSED, "paused"), (Campaign.State.CLOSED, "closed")]
)
def test_paused_and_closed_campaigns_hand_out_nothing(state, reason):
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna], state=state)
    result = queue.next_item(campaign, anna)
    assert result.assignment is None and result.reason == reason


def test_control_items_go_to_every_annotator_after_each_interval():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(
        overlap=1,
        control_interval=2,
        annotators=[anna, ben],
        options=SelectionOptions(mode="every", attention_count=2),
    )
    controls = set(campaign.items.controls().values_list("pk", flat=True))
    assert len(controls) == 2
    order = []
    for _ in range(6):
        a = queue.next_item(campaign, anna).assignment
        order.append(a.item_id in controls)
        submit(
            a, {"rating": a.item.expected_answer["rating"]} if a.item.is_control else {"rating": 1}
        )
    assert order == [False, False, True, False, False, True]
    # Ben sees the same control items: they are not limited by the overlap of 1.
    ben_controls = 0
    while (result := queue.next_item(campaign, ben)).assignment:
        ben_controls += result.assignment.item_id in controls
        rate(result.assignment)
    assert ben_controls == 2


def test_block_action_stops_an_annotator_who_fails_attention_checks():
    anna = make_annotator("anna")
    campaign = make_campaign(
        overlap=1,
        control_interval=1,
        qc_action=Campaign.QCAction.BLOCK,
        annotators=[anna],
        options=SelectionOptions(mode="every", attention_count=1),
    )
    rate(queue.next_item(campaign, anna).assignment)
    check = queue.next_item(campaign, anna).assignment
    assert check.item.is_attention_check
    wrong = (check.item.expected_answer["rating"] + 3) % 6
    submit(check, {"rating": wrong})
    result = queue.next_item(campaign, anna)
    assert result.assignment is None and result.reason == queue.BLOCKED
    assert not Assignment.objects.filter(annotator=anna, state="reserved").exists()


def test_warn_action_keeps_the_annotator_going():
    anna = make_annotator("anna")
    campaign = make_campaign(
        overlap=1,
        control_interval=1,
        annotators=[anna],
        options=SelectionOptions(mode="every", attention_count=1),
    )
    rate(queue.next_item(campaign, anna).assignment)
    check = queue.next_item(campaign, anna).assignment
    submit(check, {"rating": (check.item.expected_answer["rating"] + 3) % 6})
    assert queue.next_item(campaign, anna).assignment is not None
