"""Nugget post-editing in a real browser (issue 27, section 5): edit, re-label, merge, split,
add, delete and take back with keys and buttons, a reload that resumes from the draft, and a
submit whose stored answer is exactly what was done."""

import json
import time

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from annotation.models import Assignment
from crux_app.models import Collection
from evaluation.nuggets.post_edit_task import KEY
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.annotation.test_annotation_browser import (
    ITEM,
    answers_of,
    enter_as,
    open_workspace,
    settled,
)
from tests.evaluation.nuggets.nugget_files import NUGGETS
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MOON, SUN, SPRING = (n["text"] for n in NUGGETS[0]["nuggets"])
SUN2 = "The sun raises a smaller tide"
ADDED = "Tides rise and fall twice a day"
ROWS = f"{ITEM} .ne-list .ne-row"


def n(text: str, importance: str = "vital") -> dict:
    return {"text": text, "importance": importance}


def one_topic_campaign(tmp_path, annotator, *, both: bool = False):
    """Topic t1's three nuggets (moon vital, sun vital, spring tides okay) as the only item
    (``both``: then t2's one nugget, okay)."""
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    campaign = make_campaign(KEY, collection=collection, annotators=[annotator], overlap=1)
    if both:
        return campaign
    campaign.items.exclude(payload__topic="t1").delete()
    campaign.selection = {**campaign.selection, "items": 1}
    campaign.save(update_fields=["selection"])
    return campaign


def shown(page: Page) -> list[tuple[str, str]]:
    rows = page.locator(ROWS)
    return [
        (rows.nth(i).locator(".ne-text").inner_text(), rows.nth(i).get_attribute("data-importance"))
        for i in range(rows.count())
    ]


def type_text(page: Page, text: str) -> None:
    box = page.locator(f"{ITEM} .ne-input")
    expect(box).to_be_focused()
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Enter")
    expect(box).to_have_count(0)


def draft_operations(annotator) -> int:
    draft = Assignment.objects.get(annotator=annotator).draft or {}
    try:
        return len(json.loads(draft.get("edits", ""))["history"])
    except ValueError:
        return -1


def test_post_editing_with_keys_and_buttons_stores_what_was_done(
    live_server, page, page_errors, tmp_path, screenshot
):
    anna = make_annotator("anna")
    campaign = one_topic_campaign(tmp_path, anna)
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    settled(page)
    expect(page.locator(ROWS)).to_have_count(3)
    expect(page.locator(f"{ITEM} .ne-keys")).to_contain_text("merge with the next")
    assert_accessible(page)
    assert shown(page) == [(MOON, "vital"), (SUN, "vital"), (SPRING, "okay")]
    expect(page.locator(ROWS).nth(0)).to_have_class("ne-row focused")

    # Edit with keys: j moves down, e opens the text, Enter keeps it; o re-labels it okay.
    page.keyboard.press("j")
    page.keyboard.press("e")
    type_text(page, SUN2)
    page.keyboard.press("o")
    assert shown(page) == [(MOON, "vital"), (SUN2, "okay"), (SPRING, "okay")]

    # The draft keeps the work: a reload resumes it.
    deadline = time.monotonic() + 10
    while draft_operations(anna) != 2 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert draft_operations(anna) == 2
    page.reload()
    expect(page.locator(ROWS)).to_have_count(3)
    assert shown(page) == [(MOON, "vital"), (SUN2, "okay"), (SPRING, "okay")]
    expect(page.locator(f"{ITEM} .ne-history-count")).to_have_text("2")

    # Merge with the button (the first row chosen with the mouse), then split it again by keys
    # with the cursor after the moon's text.
    page.locator(ROWS).nth(0).locator(".ne-text").click()
    page.get_by_role("button", name="Merge with next").click()
    assert shown(page) == [(f"{MOON} {SUN2}", "vital"), (SPRING, "okay")]
    page.keyboard.press("x")
    box = page.locator(f"{ITEM} .ne-input")
    expect(box).to_be_focused()
    box.evaluate("(el, at) => el.setSelectionRange(at, at)", len(MOON))
    page.keyboard.press("Enter")
    expect(box).to_have_count(0)
    assert shown(page) == [(MOON, "vital"), (SUN2, "vital"), (SPRING, "okay")]

    # Add after the first, by key; the new one is vital and typed in place.
    page.keyboard.press("a")
    type_text(page, ADDED)
    assert shown(page) == [(MOON, "vital"), (ADDED, "vital"), (SUN2, "vital"), (SPRING, "okay")]

    # Delete by key, then take it back (z): it leaves the history.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("d")
    assert [t for t, _ in shown(page)] == [ADDED, SUN2, SPRING]
    page.keyboard.press("z")
    assert [t for t, _ in shown(page)] == [MOON, ADDED, SUN2, SPRING]

    # Delete with the button; re-label by clicking a badge.
    page.locator(ROWS).nth(3).locator(".ne-text").click()
    page.get_by_role("button", name="Delete").click()
    page.locator(ROWS).nth(1).locator(".ne-importance").click()
    final = [(MOON, "vital"), (ADDED, "okay"), (SUN2, "vital")]
    assert shown(page) == final
    expect(page.locator(f"{ITEM} .ne-count")).to_have_text("(3, 2 vital)")
    screenshot("nugget_post_editing")

    # Typing blocks Enter's submit (it ends the typing); then Enter submits.
    page.keyboard.press("e")
    page.keyboard.press("Escape")
    expect(page.locator(f"{ITEM} .ne-input")).to_have_count(0)
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")

    (answer,) = answers_of(anna)
    assert answer["nuggets"] == [n(t, i) for t, i in final]
    steps = [(h["op"], h["positions"], h["before"], h["after"]) for h in answer["history"]]
    assert steps == [
        ("edit", [1], [n(SUN)], [n(SUN2)]),
        ("importance", [1], [n(SUN2)], [n(SUN2, "okay")]),
        ("merge", [0, 1], [n(MOON), n(SUN2, "okay")], [n(f"{MOON} {SUN2}")]),
        ("split", [0], [n(f"{MOON} {SUN2}")], [n(MOON), n(SUN2)]),
        ("add", [1], [], [n(ADDED)]),
        ("delete", [3], [n(SPRING, "okay")], []),
        ("importance", [1], [n(ADDED)], [n(ADDED, "okay")]),
    ]
    times = [h["at_ms"] for h in answer["history"]]
    assert times == sorted(times) and times[0] > 0

    # The answered item, read-only: the edited list, no toolbar.
    assignment = Assignment.objects.get(annotator=anna)
    page.goto(live_server.url + reverse("annotation-item", args=[campaign.slug, assignment.pk]))
    expect(page.locator(".ws-review .ne-row")).to_have_count(3)
    expect(page.locator(".ws-review .ne-toolbar")).to_be_hidden()
    assert [r.inner_text() for r in page.locator(".ws-review .ne-row .ne-text").all()] == [
        MOON,
        ADDED,
        SUN2,
    ]
    expect(page.locator("#review-answer")).to_have_text("3 nuggets (2 vital), 7 edits")
    assert_accessible(page)
    assert page_errors == []


def test_an_empty_text_or_an_unfinished_one_is_not_sent_and_the_next_item_is_editable(
    live_server, page, page_errors, tmp_path
):
    anna = make_annotator("anna")
    campaign = one_topic_campaign(tmp_path, anna, both=True)
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    settled(page)
    page.keyboard.press("a")
    expect(page.locator(f"{ITEM} .ne-input")).to_be_focused()
    page.keyboard.press("Enter")  # nothing typed: the box stays, with a hint
    expect(page.locator(f"{ITEM} .ws-hint")).to_contain_text("Write the nugget first")
    expect(page.locator(f"{ITEM} .ne-input")).to_have_count(1)
    # Submit with the mouse while typing: workspace.js holds it back with the task's hint.
    page.get_by_role("button", name="Submit").click()
    expect(page.locator(f"{ITEM} .ws-hint")).to_contain_text("Finish the nugget you are typing")
    assert not Assignment.objects.filter(annotator=anna, state="submitted").exists()
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator(ROWS)).to_have_count(3)
    page.get_by_role("button", name="Submit").click()
    # The prefetched item (t2) comes in with its own editor, keys working.
    expect(page.locator(f"{ITEM} .ne-editor")).to_have_attribute("data-topic", "t2")
    expect(page.locator(ROWS).first).to_have_attribute("data-index", "0")
    page.keyboard.press("v")
    expect(page.locator(ROWS).first).to_have_attribute("data-importance", "vital")
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    first, second = answers_of(anna)
    assert first == {"nuggets": [n(MOON), n(SUN), n(SPRING, "okay")], "history": []}
    pastry = NUGGETS[1]["nuggets"][0]["text"]
    assert second["nuggets"] == [n(pastry)]
    assert [h["op"] for h in second["history"]] == ["importance"]
    assert page_errors == []
