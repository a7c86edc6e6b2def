"""The annotator's workspace in a real browser (issue 23, part 2): nothing answered under the
sticky footer, Enter on links and buttons, the status line after a blocked submit, the one
column layout on a phone, and rationale spans marked with keys only."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment
from annotation.task_types.names import PASSAGE_RATING, REPORT_COVERAGE
from crux_app.models import SubQuestion
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.crux_app.factories import (
    make_collection,
    make_output,
    make_passages,
    make_run,
    make_topic,
)

from .test_annotation_browser import (
    ITEM,
    answer_and_wait,
    answers_of,
    enter_as,
    open_workspace,
    settled,
    small_campaign,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Where the centre of sub-question ``i`` is, and what the browser shows there.
ROW_AT_CENTRE = """(i) => {
  const row = document.querySelectorAll('#item-slot .ws-q')[i];
  const box = row.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {own: !!hit && row.contains(hit), footer: !!hit && !!hit.closest('.ws-actions')};
}"""


def ten_question_campaign(annotator):
    """Report coverage of one report against 10 sub-questions of two lines each."""
    collection = make_collection("ten-questions")
    topic = make_topic(collection, "t10", n_subquestions=10)
    for question in SubQuestion.objects.filter(topic=topic):
        question.text = (
            f"Which measures did the authorities take about aspect {question.position} of the "
            "flood, and when did they announce them to the people of the delta?"
        )
        question.save(update_fields=["text"])
    passages = make_passages(collection, "t10", 2)
    make_output(topic, "bm25", passages, text="Floods hit the delta. Rain was heavy in June.")
    return make_campaign(REPORT_COVERAGE, collection=collection, annotators=[annotator])


def test_every_sub_question_is_answered_in_view_at_1366x850(
    live_server, page, page_errors, screenshot
):
    anna = make_annotator("anna")
    campaign = ten_question_campaign(anna)
    page.set_viewport_size({"width": 1366, "height": 850})
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    settled(page)
    rows = page.locator(".ws-q")
    expect(rows).to_have_count(10)
    # The side column overflows at this size: the footer is sticky over its scrolled content.
    side = page.locator(f"{ITEM} .ws-side")
    assert side.evaluate("e => e.scrollHeight > e.clientHeight")
    assert_accessible(page)
    for i in range(10):
        expect(rows.nth(i)).to_have_class(re.compile("focused"))
        seen = page.evaluate(ROW_AT_CENTRE, i)
        assert seen == {"own": True, "footer": False}, f"sub-question {i + 1} before answering"
        page.keyboard.press("y" if i % 2 == 0 else "n")
        expect(rows.nth(i).locator("input:checked")).to_have_count(1)
        seen = page.evaluate(ROW_AT_CENTRE, i)
        assert not seen["footer"], f"sub-question {i + 1} after answering"
    screenshot("workspace_report_coverage_1366x850")
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    (answer,) = answers_of(anna)
    assert [a["answerable"] for a in answer["answers"]] == [1, 0] * 5
    assert page_errors == []


def test_enter_on_links_and_buttons_and_the_previous_item_key(live_server, page, page_errors):
    anna = make_annotator("anna")
    campaign = small_campaign(PASSAGE_RATING, 3, overlap=1, annotators=[anna])
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    first = int(page.locator(ITEM).get_attribute("data-assignment"))
    answer_and_wait(page, "4", "Enter")
    status = page.locator("#ws-status")
    expect(status).to_contain_text("Answer saved")
    # A blocked submit: only the red error shows, the previous item's notice goes.
    page.keyboard.press("Enter")
    expect(page.locator(f"{ITEM} .ws-hint")).to_contain_text("Choose a rating")
    expect(status).to_have_text("")
    expect(status).to_be_hidden()
    expect(page.locator(".ws-keys")).to_contain_text("p previous item")

    # Enter on the focused "Previous item" link follows it.
    review = re.compile(re.escape(reverse("annotation-item", args=[campaign.slug, first])) + "$")
    page.locator("#ws-back .ws-back-link").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(review)
    expect(page.locator("#review-answer")).to_have_text("4")
    assert_accessible(page)  # the previous item, read-only
    page.get_by_role("link", name="Back to your current item").click()
    expect(page.locator(ITEM)).to_be_visible()

    # p opens the previous item too.
    settled(page).keyboard.press("p")
    expect(page).to_have_url(review)
    page.go_back()
    expect(page.locator(ITEM)).to_be_visible()

    # Enter on the focused "My campaigns" link, then on the focused "Log out" button.
    settled(page).locator("header nav").get_by_role("link", name="My campaigns").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/annotate/$"))
    page.goto(live_server.url + reverse("annotation-workspace", args=[campaign.slug]))
    settled(page).get_by_role("button", name="Log out").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(re.escape(reverse("login"))))
    assert Assignment.objects.filter(annotator=anna, state="submitted").count() == 1
    assert page_errors == []


def test_a_phone_gets_one_column_and_a_word_about_the_screen(
    live_server, page, page_errors, screenshot
):
    anna = make_annotator("anna")
    campaign = small_campaign(PASSAGE_RATING, 1, overlap=1, annotators=[anna])
    page.set_viewport_size({"width": 390, "height": 844})
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    passage = page.locator(f"{ITEM} .ws-main")
    width = passage.evaluate("e => e.getBoundingClientRect().width")
    assert width >= 0.8 * 390, f"passage column {width:.0f} px wide on a 390 px screen"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
    expect(page.locator("#ws-small-screen")).to_be_visible()
    expect(page.locator("#ws-small-screen")).to_contain_text("larger screen")
    assert_accessible(settled(page))  # the one-column layout
    screenshot("workspace_phone_390")
    # The rating still works from the keyboard, and the answer is stored.
    settled(page).keyboard.press("3")
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")
    assert answers_of(anna)[0]["rating"] == 3
    # At laptop size the notice is not there.
    page.set_viewport_size({"width": 1366, "height": 768})
    expect(page.locator("#ws-small-screen")).to_be_hidden()
    assert page_errors == []


def test_a_rationale_marked_with_keys_only(live_server, page, page_errors):
    anna = make_annotator("anna")
    collection = make_collection("rationale")
    topic = make_topic(collection, "t1", n_subquestions=1)
    (passage,) = make_passages(collection, "t1", 1)
    passage.text = (
        "Rain fell for days. The river rose by two metres!\nThe dam held. Nobody was hurt."
    )
    passage.save(update_fields=["text"])
    make_run(collection, "bm25", topic, [passage])
    campaign = make_campaign(PASSAGE_RATING, collection=collection, annotators=[anna])
    assert campaign.items.count() == 1
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    settled(page)
    expect(page.locator(".ws-keys")).to_contain_text("m mark")
    shown = page.locator('.ws-span[data-for="rationale"]')
    # j twice: the cursor is on the second sentence; m marks it; j, m add the third.
    for key in ("j", "j", "m"):
        page.keyboard.press(key)
    expect(shown).to_have_text("The river rose by two metres!")
    for key in ("j", "m"):
        page.keyboard.press(key)
    expect(shown).to_have_text("The river rose by two metres!\nThe dam held.")
    # k back to the second and m again: it leaves the span, which keeps the third.
    for key in ("k", "m"):
        page.keyboard.press(key)
    expect(shown).to_have_text("The dam held.")
    for key in ("k", "m"):  # the first sentence joins: the span covers first to third
        page.keyboard.press(key)
    expect(shown).to_have_text("Rain fell for days. The river rose by two metres!\nThe dam held.")
    page.keyboard.press("Escape")
    expect(shown).to_contain_text("select supporting text")
    for key in ("j", "j", "j", "m", "2", "Enter"):  # the fourth, last sentence
        page.keyboard.press(key)
    expect(page.locator(".ws-done")).to_contain_text("All done")
    (answer,) = answers_of(anna)
    text = passage.text
    assert answer["rationale"] == "Nobody was hurt."
    assert text[answer["rationale_start"] : answer["rationale_end"]] == "Nobody was hurt."
    assert answer["rating"] == 2
    assert page_errors == []
