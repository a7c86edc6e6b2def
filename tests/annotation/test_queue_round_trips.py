"""The queue's hot path in few statements: query budgets per request, the one-statement pick
over the pools (its order when a pool's rows are held), the one-statement judgment upsert and
the reservation's commit without a flush wait."""

import threading

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Campaign, CampaignItem
from annotation.queue import queue, reservations
from annotation.queue.candidates import first_candidate
from annotation.workspace.submission import submit
from crux_app import data_version
from crux_app.models import Judgment

from .campaign_data import make_annotator, make_campaign

HTMX = {"HTTP_HX_REQUEST": "true"}
RATING = {"rating": 4, "rationale": "Passage 0", "rationale_start": 0, "rationale_end": 9}
# Session, account, campaign (the invitation is part of its lookup), expiry probe, BEGIN,
# annotator lock, their assignments, the pick, the insert, COMMIT (a fragment runs no
# context processor, so no role check).
PREFETCH_QUERIES = 10
# Session, account, campaign, assignment, BEGIN, lock, two updates, the judgment upsert, the
# data-version bump, COMMIT, the progress and latest submission.
SUBMIT_QUERIES = 12


@pytest.mark.django_db
def test_a_prefetch_and_a_submit_stay_within_their_query_budgets():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=2, annotators=[anna])
    client = Client()
    client.force_login(anna)
    client.get(reverse("annotation-workspace", args=[campaign.slug]))
    current = queue.next_item(campaign, anna).assignment
    submit_url = reverse("annotation-submit", args=[campaign.slug, current.pk])
    # The first label creates the annotator's judge: outside the budget, as once per person.
    first = queue.next_item(campaign, anna, after=current.pk).assignment
    client.post(submit_url, {"rating": "2", "rationale": ""}, **HTMX)

    with CaptureQueriesContext(connection) as prefetch:
        response = client.get(
            reverse("annotation-prefetch", args=[campaign.slug]), {"after": first.pk}, **HTMX
        )
    assert response.status_code == 200 and b"data-assignment" in response.content
    submit_url = reverse("annotation-submit", args=[campaign.slug, first.pk])
    with CaptureQueriesContext(connection) as submitted:
        response = client.post(submit_url, {"rating": "3", "rationale": ""}, **HTMX)
    assert response.status_code == 200 and b"Answer saved" in response.content
    assert len(prefetch) <= PREFETCH_QUERIES, [q["sql"][:80] for q in prefetch]
    assert len(submitted) <= SUBMIT_QUERIES, [q["sql"][:80] for q in submitted]


@pytest.mark.django_db
def test_the_pick_takes_the_first_pool_with_items_and_its_first_free_item():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=2, annotators=[anna])
    items = CampaignItem.objects.filter(campaign=campaign)
    first, second = items.order_by("id")[:2]
    empty = items.filter(is_control=True).order_by("load", "id")
    later = items.filter(pk=second.pk)
    with transaction.atomic():
        candidate = first_candidate([empty, items.order_by("id"), later], tried=[])
        assert (candidate.pool, candidate.item.pk, candidate.held) == (1, first.pk, False)
        # A tried item is left out; the next free one of the same pool comes.
        candidate = first_candidate([empty, items.order_by("id")], tried=[first.pk])
        assert (candidate.pool, candidate.item.pk) == (1, second.pk)
    with transaction.atomic():
        assert first_candidate([empty], tried=[]) is None


@pytest.mark.django_db(transaction=True)
def test_a_pool_whose_items_others_hold_is_reported_held_not_skipped():
    """The old per-pool loop waited for a pool's held rows before the next pool; the one
    statement says "held" for that pool, so the queue still waits there first."""
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=2, annotators=[anna])
    items = CampaignItem.objects.filter(campaign=campaign)
    first = items.order_by("id").first()
    started, holding = threading.Event(), threading.Event()

    def hold_first_item() -> None:
        try:
            with transaction.atomic():
                CampaignItem.objects.select_for_update().get(pk=first.pk)
                started.set()
                holding.wait(timeout=30)
        finally:
            connection.close()

    other = threading.Thread(target=hold_first_item)
    other.start()
    try:
        assert started.wait(timeout=30)
        with transaction.atomic():
            candidate = first_candidate(
                [items.filter(pk=first.pk), items.exclude(pk=first.pk).order_by("id")], tried=[]
            )
        assert (candidate.pool, candidate.held, candidate.item) == (0, True, None)
    finally:
        holding.set()
        other.join(timeout=30)


@pytest.mark.django_db(transaction=True)
def test_a_reservation_commits_without_waiting_for_the_flush_and_only_its_own():
    anna = make_annotator("anna")
    make_campaign(overlap=1, annotators=[anna])

    def setting() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return cursor.fetchone()[0]

    with transaction.atomic():
        reservations.lock_annotator(anna)
        assert setting() == "off"
    assert setting() == "on"
    # Nested in a caller's transaction (which may store answers), the setting is left alone.
    with transaction.atomic(), transaction.atomic():
        reservations.lock_annotator(anna)
        assert setting() == "on"


@pytest.mark.django_db
def test_the_judgment_upsert_updates_in_place_like_update_or_create():
    anna = make_annotator("anna")
    first_campaign = make_campaign(overlap=1, annotators=[anna], name="first")
    second_campaign = make_campaign(
        overlap=1, annotators=[anna], name="second", collection=first_campaign.collection
    )
    before = data_version.current(first_campaign.collection_id)
    submit(queue.next_item(first_campaign, anna).assignment, RATING, 2000)
    judgment = Judgment.objects.get()
    assert (judgment.rating, judgment.distribution, judgment.raw_output, judgment.prompt) == (
        4,
        None,
        "",
        "",
    )
    assert data_version.current(first_campaign.collection_id) != before
    # The same pair labelled again in another campaign: the same row, the latest label.
    again = queue.next_item(second_campaign, anna).assignment
    submit(again, {**RATING, "rating": 1, "rationale": ""}, 500)
    updated = Judgment.objects.get()
    assert updated.pk == judgment.pk and updated.created_at == judgment.created_at
    assert (updated.rating, updated.rationale, updated.time_spent_ms) == (1, "", 500)
    assert updated.updated_at > judgment.updated_at


@pytest.mark.django_db
@pytest.mark.parametrize(
    "policy", [Campaign.AssignmentPolicy.OVERLAP_FIRST, Campaign.AssignmentPolicy.COVERAGE_FIRST]
)
def test_a_prefetch_then_submit_round_gives_each_item_at_most_the_overlap(policy):
    users = [make_annotator(name) for name in ("anna", "ben", "cleo")]
    campaign = make_campaign(overlap=2, assignment_policy=policy, annotators=users)
    current = {user.pk: queue.next_item(campaign, user).assignment for user in users}
    for _ in range(campaign.items.count()):
        for user in users:
            held = current[user.pk]
            if held is None:
                continue
            nxt = queue.next_item(campaign, user, after=held.pk).assignment
            submit(held, RATING, 100)
            current[user.pk] = nxt
    done = list(campaign.items.values_list("annotations_done", "reserved_count"))
    assert all(labels == 2 and reserved == 0 for labels, reserved in done)
