"""Annotators in a real browser: keyboard-only work on every task type, Prolific arrival,
overlap, skip and reservation expiry, isolation."""

import re
import time

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from annotation.models import Assignment
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.browser_fixtures import LAPTOP

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ITEM = "#item-slot .ws-item"


def enter_as(page: Page, live_server, user) -> Page:
    """Log ``user`` in by session cookie (the login form is exercised once, below)."""
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return page


def open_workspace(page: Page, live_server, campaign) -> Page:
    page.goto(live_server.url + reverse("annotation-workspace", args=[campaign.slug]))
    expect(page.locator(ITEM)).to_be_visible()
    return page


def settled(page: Page) -> Page:
    """Wait until the background prefetch of the next item has answered."""
    expect(page.locator("#workspace")).not_to_have_attribute("data-prefetch", "pending")
    return page


def leave(page: Page) -> None:
    settled(page).context.close()


def answer_and_wait(page: Page, *keys: str) -> None:
    """Press ``keys`` (the last one submits) and wait until the item on screen changes."""
    settled(page)
    before = page.locator(ITEM).get_attribute("data-assignment")
    for key in keys:
        page.keyboard.press(key)
    expect(page.locator(f"#item-slot [data-assignment='{before}']")).to_have_count(0)


def select_text(page: Page, start: int, end: int) -> None:
    """Select characters start..end of the item's text, as a mouse drag would."""
    page.evaluate(
        """([start, end]) => {
          const node = document.querySelector('#item-slot .ws-selectable').firstChild;
          const range = document.createRange();
          range.setStart(node, start); range.setEnd(node, end);
          window.getSelection().removeAllRanges(); window.getSelection().addRange(range);
        }""",
        [start, end],
    )


def small_campaign(task_type: str, n_items: int, **settings):
    campaign = make_campaign(task_type, **settings)
    keep = list(campaign.items.order_by("id").values_list("pk", flat=True)[:n_items])
    campaign.items.exclude(pk__in=keep).delete()
    campaign.selection = {**campaign.selection, "items": n_items}
    campaign.save(update_fields=["selection"])
    return campaign


def answers_of(user) -> list:
    return [a.answer for a in Assignment.objects.filter(annotator=user, state="submitted")
            .order_by("submitted_at")]  # fmt: skip


def test_passage_rating_with_the_keyboard_after_logging_in(
    live_server, login, page_errors, screenshot
):
    anna = make_annotator("anna", password="annotate-pass-1")
    small_campaign(PASSAGE_RATING, 2, overlap=1, annotators=[anna])
    page = login("anna", "annotate-pass-1")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    expect(page).to_have_url(re.compile(r"/annotate/$"))
    assert_accessible(page)  # the annotator's home
    page.get_by_role("link", name="Start").click()
    expect(page.locator(ITEM)).to_be_visible()
    assert_accessible(settled(page))
    expect(page.locator(".ws-choice")).to_have_count(6)  # CRUX's rubric, 5 down to 0
    expect(page.locator(".ws-choices")).to_contain_text("highly relevant, complete, and accurate")
    # A span selected in the passage becomes the rationale (offsets in the shown text). Wait
    # for the workspace script to run first (it sets data-prefetch): a selection made before
    # its listeners exist is never seen.
    select_text(settled(page), 8, 17)
    expect(page.locator('.ws-span[data-for="rationale"]')).to_have_text("0 of duc-")
    page.keyboard.press("Enter")  # no rating yet: a hint, nothing sent
    expect(page.locator(".ws-hint")).to_contain_text("Choose a rating")
    answer_and_wait(page, "4", "Enter")
    expect(page.locator(".ws-done-count")).to_have_text("1")
    # The second item was the prefetched one: shown without asking the server for it.
    assert not [url for url in requests if "/next/" in url]
    assert len([url for url in requests if "/prefetch/" in url]) == 2
    screenshot("annotation_workspace")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    assert_accessible(page)
    first, second = answers_of(anna)
    assert (first["rating"], first["rationale"]) == (4, "0 of duc-")
    assert (first["rationale_start"], first["rationale_end"]) == (8, 17)
    assert second["rating"] == 1
    times = Assignment.objects.filter(annotator=anna).values_list("time_spent_ms", flat=True)
    assert all(t is not None and t < 60_000 for t in times)
    assert page_errors == []


def test_report_coverage_with_the_keyboard(live_server, page, page_errors):
    anna = make_annotator("anna")
    campaign = small_campaign(REPORT_COVERAGE, 1, overlap=1, annotators=[anna])
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    rows = page.locator(".ws-q")
    expect(rows.nth(0)).to_have_class(re.compile("focused"))
    assert_accessible(settled(page))
    page.keyboard.press("y")  # answers the first, focus moves to the second
    expect(rows.nth(1)).to_have_class(re.compile("focused"))
    page.keyboard.press("Enter")  # the second is unanswered: nothing is sent
    expect(page.locator(".ws-hint")).to_contain_text("Answer every sub-question")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("n")  # changes the first answer
    page.keyboard.press("ArrowDown")
    select_text(page, 0, 21)  # the supporting span goes to the focused sub-question
    expect(page.locator('.ws-span[data-for="span_2"]')).to_have_text("Floods hit the delta.")
    page.keyboard.press("y")
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    (answer,) = answers_of(anna)
    assert [(a["position"], a["answerable"]) for a in answer["answers"]] == [(0, 0), (2, 1)]
    assert (answer["answers"][1]["span"], answer["answers"][1]["span_end"]) == (
        "Floods hit the delta.",
        21,
    )
    assert page_errors == []


@pytest.mark.parametrize(
    ("task_type", "keys", "stored"),
    [
        (ANSWER_EQUIVALENCE, ["y", "n"], [{"equivalent": True}, {"equivalent": False}]),
        (FAILURE_CATEGORY, ["c", "a"], [{"category": "C"}, {"category": "A"}]),
    ],
)
def test_answer_tasks_with_the_keyboard(live_server, page, page_errors, task_type, keys, stored):
    anna = make_annotator("anna")
    campaign = small_campaign(task_type, 2, overlap=1, annotators=[anna])
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    assert_accessible(settled(page))
    answer_and_wait(page, keys[0], "Enter")
    page.keyboard.press(keys[1])
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    assert answers_of(anna) == stored
    assert page_errors == []


def test_prolific_arrival_to_completion_code_and_redirect(live_server, page, page_errors):
    back = live_server.url + reverse("login") + "?returned=prolific"
    campaign = small_campaign(
        PASSAGE_RATING,
        1,
        overlap=1,
        prolific_enabled=True,
        prolific_completion_code="CRUX2024",
        prolific_redirect_url=back,
        prolific_study_id="b" * 24,
    )
    arrival = reverse("annotation-prolific", args=[campaign.slug])
    pid, study, session = "a" * 24, "b" * 24, "c" * 24  # Prolific ids: 24 hex characters
    page.goto(
        f"{live_server.url}{arrival}?PROLIFIC_PID={pid}&STUDY_ID={study}&SESSION_ID={session}"
    )
    expect(page.locator(ITEM)).to_be_visible()
    expect(page.locator("header .account")).to_contain_text(f"prolific-{pid}")
    page.keyboard.press("5")
    page.keyboard.press("Enter")
    expect(page.locator("#completion-code")).to_have_text("CRUX2024")
    page.wait_for_url(re.compile(r"returned=prolific"), timeout=8000)
    assert answers_of(Assignment.objects.get().annotator) == [
        {"rating": 5, "rationale": "", "rationale_start": None, "rationale_end": None}
    ]
    assert page_errors == []


def _new_page(browser: Browser, live_server, user) -> Page:
    context = browser.new_context(viewport=LAPTOP)
    context.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    context.set_default_timeout(10_000)
    return enter_as(context.new_page(), live_server, user)


def test_overlap_two_gives_two_annotators_the_same_items_and_a_third_none(browser, live_server):
    users = [make_annotator(name) for name in ("anna", "ben", "cleo")]
    campaign = small_campaign(PASSAGE_RATING, 2, overlap=2, annotators=users)
    for user in users[:2]:
        page = open_workspace(_new_page(browser, live_server, user), live_server, campaign)
        answer_and_wait(page, "3", "Enter")
        page.keyboard.press("2")
        page.keyboard.press("Enter")
        expect(page.locator(".ws-done")).to_contain_text("All done")
        leave(page)
    page = _new_page(browser, live_server, users[2])
    page.goto(live_server.url + reverse("annotation-workspace", args=[campaign.slug]))
    expect(page.locator(".ws-done")).to_contain_text("All done")
    page.context.close()
    done = Assignment.objects.filter(state="submitted").order_by("item_id")
    items = [list(done.filter(annotator=u).values_list("item_id", flat=True)) for u in users]
    assert items[0] == items[1] == list(campaign.items.order_by("pk").values_list("pk", flat=True))
    assert items[2] == [] and not Assignment.objects.filter(annotator=users[2]).exists()


def test_skip_and_reservation_expiry_requeue(browser, live_server):
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = small_campaign(
        PASSAGE_RATING, 2, overlap=1, reservation_seconds=2, annotators=[anna, ben]
    )
    page_a = open_workspace(_new_page(browser, live_server, anna), live_server, campaign)
    skipped = int(page_a.locator(ITEM).get_attribute("data-assignment"))
    skipped_item = Assignment.objects.get(pk=skipped).item_id
    answer_and_wait(page_a, "s")  # skip: anna moves on to the other item
    held_item = Assignment.objects.get(
        pk=int(page_a.locator(ITEM).get_attribute("data-assignment"))
    ).item_id
    leave(page_a)  # anna leaves with that item reserved

    page_b = open_workspace(_new_page(browser, live_server, ben), live_server, campaign)
    first_b = Assignment.objects.get(pk=int(page_b.locator(ITEM).get_attribute("data-assignment")))
    assert first_b.item_id == skipped_item  # the skipped item went back to the queue
    time.sleep(2.2)  # anna's reservation expires
    answer_and_wait(page_b, "4", "Enter")
    second_b = Assignment.objects.get(pk=int(page_b.locator(ITEM).get_attribute("data-assignment")))
    assert second_b.item_id == held_item  # released lazily, handed to ben
    assert Assignment.objects.get(annotator=anna, item_id=held_item).state == "expired"
    leave(page_b)


def test_an_annotator_cannot_open_anothers_item_or_researcher_pages(browser, live_server):
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = small_campaign(PASSAGE_RATING, 2, overlap=2, annotators=[anna, ben])
    page_a = settled(open_workspace(_new_page(browser, live_server, anna), live_server, campaign))
    annas = reverse(
        "annotation-item",
        args=[campaign.slug, page_a.locator(ITEM).get_attribute("data-assignment")],
    )
    assert page_a.goto(live_server.url + annas).status == 200
    settled(page_a)
    page_b = _new_page(browser, live_server, ben)
    assert page_b.goto(live_server.url + annas).status == 404
    for name, args in (
        ("campaign-list", []),
        ("campaign-detail", [campaign.pk]),
        ("collection-list", []),
    ):
        assert page_b.goto(live_server.url + reverse(name, args=args)).status == 403
    leave(page_a)
    page_b.context.close()
