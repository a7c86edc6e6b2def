"""Undo right after a submit, many times (issue 34, part 4): ``u`` pressed while the answer is
still on its way, while the next item is being shown, or a while later, always reopens the
answer just given. It used to do nothing, silently, when the submit had not answered yet (the
status line still said "Press u to undo" about the answer before), and a reopened item could be
replaced by the prefetched next one that arrived after it."""

import time

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment
from annotation.task_types.names import PASSAGE_RATING
from tests.annotation.campaign_data import make_annotator, make_campaign, report_collection
from tests.annotation.test_annotation_browser import (
    ITEM,
    answer_and_wait,
    enter_as,
    open_workspace,
    settled,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CYCLES = 40
# Seconds between the submit's Enter and u: at once (the submit still on its way), while the
# next item is being swapped in, and after it shows.
DELAYS = (0, 0.02, 0.08, 0, 0.3, 0.01, 0.15, 0.6)


def on_screen(page) -> int:
    return int(page.locator(ITEM).get_attribute("data-assignment"))


def test_u_right_after_a_submit_always_reopens_it(live_server, page, page_errors):
    anna = make_annotator("anna")
    # 2 sub-questions x 12 passages: 24 items, enough for every other cycle to move on.
    campaign = make_campaign(
        PASSAGE_RATING, collection=report_collection(n_passages=12), annotators=[anna]
    )
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    status = page.locator("#ws-status")
    for cycle in range(CYCLES):
        rating = str(cycle % 6)
        if cycle % 3:  # else the prefetch of the next item may still be on its way
            settled(page)
        item = on_screen(page)
        page.keyboard.press(rating)
        expect(page.locator(f"{ITEM} input[name=rating][value='{rating}']")).to_be_checked()
        page.keyboard.press("Enter")
        time.sleep(DELAYS[cycle % len(DELAYS)])
        page.keyboard.press("u")
        where = f"cycle {cycle}, u {DELAYS[cycle % len(DELAYS)]} s after the submit"
        expect(page.locator(f"{ITEM}[data-assignment='{item}']"), where).to_be_visible()
        expect(status, where).to_contain_text("open again")
        expect(page.locator(f"{ITEM} input[name=rating][value='{rating}']"), where).to_be_checked()
        # Nothing swaps the reopened item out afterwards (a late prefetch, a late next item).
        settled(page)
        time.sleep(0.1)
        assert on_screen(page) == item, where
        reopened = Assignment.objects.get(pk=item)
        assert (reopened.state, reopened.draft.get("rating")) == ("reserved", rating), where
        if cycle % 2:  # submit it again and go on to the next item
            answer_and_wait(page, "Enter")
            expect(status).to_contain_text("Answer saved")
            assert Assignment.objects.get(pk=item).state == "submitted"
    settled(page)  # the last prefetch has answered before the database is emptied
    submitted = Assignment.objects.filter(annotator=anna, state="submitted").count()
    assert submitted == CYCLES // 2
    assert page_errors == []
