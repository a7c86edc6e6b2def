"""Crowd control in a real browser: a failed qualification test ends on a clear page (and on
Prolific goes to the completion path), the until-confident queue gives a third annotator only
the disputed item, and a worker under the skill floor sees that their participation ended."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, CampaignItem, WorkerStop
from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator
from tests.annotation.test_annotation_browser import (
    ITEM,
    _new_page,
    answer_and_wait,
    leave,
    open_workspace,
    small_campaign,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_failed_qualification_test_ends_on_the_prolific_completion_path(
    live_server, page, page_errors
):
    back = live_server.url + reverse("login") + "?returned=prolific"
    campaign = small_campaign(
        PASSAGE_RATING, 3, overlap=1, prolific_enabled=True, prolific_completion_code="QUAL1",
        prolific_redirect_url=back, prolific_study_id="b" * 24, qualification_items=1,
        qualification_min_accuracy=1.0, gold_tolerance=0,
    )  # fmt: skip
    gold = campaign.items.order_by("id").first()
    CampaignItem.objects.filter(pk=gold.pk).update(is_gold=True, gold_answer={"rating": 3})
    arrival = reverse("annotation-prolific", args=[campaign.slug])
    page.goto(f"{live_server.url}{arrival}?PROLIFIC_PID={'a' * 24}&STUDY_ID={'b' * 24}"
              f"&SESSION_ID={'c' * 24}")  # fmt: skip
    expect(page.locator(ITEM)).to_be_visible()
    assert page.locator(ITEM).get_attribute("data-assignment") == str(
        Assignment.objects.get(item=gold).pk
    )
    page.keyboard.press("0")
    page.keyboard.press("Enter")
    expect(page.locator("#qualification-failed")).to_be_visible()
    expect(page.locator("#completion-code")).to_have_text("QUAL1")
    assert_accessible(page)
    page.wait_for_url(re.compile(r"returned=prolific"), timeout=8000)
    # Never one of the campaign's items: only the test's gold item was handed out.
    assert list(Assignment.objects.values_list("item_id", flat=True)) == [gold.pk]
    assert WorkerStop.objects.get().reason == WorkerStop.Reason.QUALIFICATION
    assert page_errors == []


def test_until_confident_gives_the_third_annotator_only_the_disputed_item(browser, live_server):
    users = [make_annotator(name) for name in ("anna", "ben", "cleo")]
    campaign = small_campaign(PASSAGE_RATING, 2, overlap=2, annotators=users,
                              until_confident=True, confidence_target=0.75,
                              max_labels_per_item=3)  # fmt: skip
    first, second = campaign.items.order_by("id")
    for user, ratings in ((users[0], {first.pk: "3", second.pk: "3"}),
                          (users[1], {first.pk: "3", second.pk: "1"})):  # fmt: skip
        page = open_workspace(_new_page(browser, live_server, user), live_server, campaign)
        for n in range(2):
            shown = Assignment.objects.get(pk=page.locator(ITEM).get_attribute("data-assignment"))
            if n == 0:  # the first answer brings the second item
                answer_and_wait(page, ratings[shown.item_id], "Enter")
            else:  # the last one brings the end page
                page.keyboard.press(ratings[shown.item_id])
                page.keyboard.press("Enter")
        expect(page.locator(".ws-done")).to_contain_text("All done")
        leave(page)
    page = open_workspace(_new_page(browser, live_server, users[2]), live_server, campaign)
    shown = Assignment.objects.get(pk=page.locator(ITEM).get_attribute("data-assignment"))
    assert shown.item_id == second.pk  # the disputed one; the agreed one is closed
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    leave(page)
    counts = dict(campaign.items.values_list("pk", "annotations_done"))
    assert counts == {first.pk: 2, second.pk: 3}


def test_a_worker_under_the_skill_floor_is_told_and_the_researcher_sees_why(
    browser, live_server, researcher
):
    users = [make_annotator(name) for name in ("anna", "ben", "cleo")]
    campaign = small_campaign(PASSAGE_RATING, 4, overlap=3, annotators=users, skill_floor=0.5,
                              skill_floor_min_labels=2)  # fmt: skip
    for user, rating in ((users[0], 2), (users[1], 2), (users[2], 5)):
        for _ in range(2):
            submit(queue.next_item(campaign, user).assignment, {"rating": rating}, 3000)
    page = _new_page(browser, live_server, users[2])
    page.goto(live_server.url + reverse("annotation-workspace", args=[campaign.slug]))
    expect(page.locator("#participation-stopped")).to_be_visible()
    leave(page)
    page = _new_page(browser, live_server, researcher)
    page.goto(live_server.url + reverse("annotator-quality", args=[campaign.pk]))
    expect(page.locator("#quality-stops")).to_contain_text("Estimated skill under the floor")
    expect(page.locator("#quality-stops")).to_contain_text("cleo")
    page.context.close()
