"""The annotator's workspace layout in a real browser (issue 34, part 4): every rating stays in
view when the "Choose a rating first" hint shows at laptop size, and on a phone the controls
are touch targets of at least 44 px with no keyboard hints."""

import os

import pytest
from playwright.sync_api import Browser, Page, expect

from annotation.task_types.names import PASSAGE_RATING
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator
from tests.annotation.test_annotation_browser import (
    ITEM,
    answer_and_wait,
    enter_as,
    open_workspace,
    settled,
    small_campaign,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
TOUCH_TARGET_PX = 44
REQUEST = (
    "Describe the floods of the delta in June: where the rain fell, how far the river rose, "
    "which villages were cut off, what the authorities did and when, and what it cost."
)
QUESTION = "Which measures did the authorities take, and when did they announce them to the people?"

# Whether the browser shows each rating choice whole: its corners are its own, not the
# footer's, and inside the part of the side column on screen.
CHOICES_SEEN = """() => {
  const side = document.querySelector('#item-slot .ws-side').getBoundingClientRect();
  return Array.from(document.querySelectorAll('#item-slot .ws-choice')).map((choice) => {
    const b = choice.getBoundingClientRect();
    const own = [b.top + 2, b.bottom - 2].every((y) => {
      const hit = document.elementFromPoint(b.left + 8, y);
      return !!hit && choice.contains(hit);
    });
    return {rating: choice.querySelector('input').value, whole: own && b.top >= side.top
      && b.bottom <= side.bottom};
  });
}"""

# Height and box of each control a thumb presses.
BOXES = """(selector) => Array.from(document.querySelectorAll(selector)).map((el) => {
  const b = el.getBoundingClientRect();
  return {text: el.textContent.trim().slice(0, 30), top: b.top, bottom: b.bottom, left: b.left,
          right: b.right, height: b.height, shown: b.height > 0 && b.width > 0};
})"""


def long_texts_campaign(annotator):
    """Passage rating with a topic and a sub-question of two lines or more each."""
    campaign = small_campaign(PASSAGE_RATING, 2, overlap=1, annotators=[annotator])
    for item in campaign.items.all():
        item.payload = {**item.payload, "request": REQUEST, "question": QUESTION}
        item.save(update_fields=["payload"])
    return campaign


# 657: the window of a browser with its bars on a 1366x768 screen.
@pytest.mark.parametrize("height", [768, 657])
def test_every_rating_stays_in_view_when_the_hint_shows(
    live_server, page, page_errors, screenshot, height
):
    anna = make_annotator("anna")
    campaign = long_texts_campaign(anna)
    page.set_viewport_size({"width": 1366, "height": height})
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    expect(page.locator("#ws-guidelines")).to_have_attribute("open", "")  # the first item
    seen = settled(page).evaluate(CHOICES_SEEN)
    assert [c["rating"] for c in seen] == ["5", "4", "3", "2", "1", "0"]
    page.keyboard.press("Enter")  # no rating yet
    expect(page.locator(f"{ITEM} .ws-hint")).to_contain_text("Choose a rating")
    screenshot(f"workspace_hint_1366x{height}")
    hidden = [c["rating"] for c in page.evaluate(CHOICES_SEEN) if not c["whole"]]
    assert hidden == [], f"ratings {hidden} not whole on screen under the hint at 1366x{height}"
    assert_accessible(page)
    assert page_errors == []


def phone_page(browser: Browser) -> Page:
    """A touch screen of 390x844, as a phone's browser reports it."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.set_default_timeout(10_000)
    return context.new_page()


def test_a_phone_gets_44_px_touch_targets_and_no_key_hints(browser, live_server):
    anna = make_annotator("anna")
    campaign = small_campaign(PASSAGE_RATING, 3, overlap=1, annotators=[anna])
    page = phone_page(browser)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    settled(page).locator(f"{ITEM} .ws-choice").nth(1).tap()
    answer_and_wait(page, "Enter")  # a keyboard may still be attached: Enter submits
    expect(page.locator("#ws-back .ws-undo")).to_be_visible()

    controls = (
        f"{ITEM} .ws-submit, {ITEM} .ws-skip, #ws-back .ws-back-link, #ws-back .ws-undo, "
        f"{ITEM} .ws-choice, #ws-guidelines > summary"
    )
    boxes = page.evaluate(BOXES, controls)
    assert len(boxes) == 2 + 2 + 6 + 1
    small = [(b["text"], round(b["height"])) for b in boxes if b["height"] < TOUCH_TARGET_PX]
    assert small == [], f"touch targets under {TOUCH_TARGET_PX} px on a 390x844 phone: {small}"
    # Previous item and Undo: two targets that do not touch (a thumb presses one of them).
    back, undo = page.evaluate(BOXES, "#ws-back .ws-back-link, #ws-back .ws-undo")
    apart = back["right"] + 8 <= undo["left"] or back["bottom"] + 8 <= undo["top"]
    assert apart, f"Previous item {back} and Undo {undo} are less than 8 px apart"
    # No keyboard hints on a touch screen: the keys line and the keys on the buttons.
    expect(page.locator(f"{ITEM} .ws-keys")).to_be_hidden()
    status = page.locator("#ws-status")
    expect(status).to_have_text("Answer saved.", use_inner_text=True)  # no "Press u to undo"
    for selector in (f"{ITEM} .ws-submit kbd", "#ws-back kbd", "#ws-guidelines > summary kbd"):
        hints = page.locator(selector)
        for i in range(hints.count()):
            expect(hints.nth(i)).to_be_hidden()
    # The ratings still show their numbers: they are the answers, not key hints.
    expect(page.locator(f"{ITEM} .ws-choice kbd").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    if keep := os.environ.get("BROWSER_SCREENSHOT_DIR"):  # the screenshot fixture's folder
        page.screenshot(path=f"{keep}/workspace_phone_touch_390.png")
    assert_accessible(page)

    # Undo by touch: the answer comes back.
    page.locator("#ws-back .ws-undo").tap()
    expect(page.locator("#ws-status")).to_contain_text("open again")
    assert errors == []
    page.context.close()
