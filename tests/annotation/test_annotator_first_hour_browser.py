"""An annotator's and a researcher's first hour, in a real browser (issue 16, Annotator): where
login lands, the site's 403 and 404, the assignment policy, the new-campaign form's live count,
and the workspace's undo, previous item, change cue and skip feedback."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from annotation.models import Assignment, Campaign
from annotation.task_types.names import PASSAGE_RATING
from tests.annotation.campaign_data import make_annotator, make_campaign, report_collection
from tests.browser_fixtures import LAPTOP

from .test_annotation_browser import (
    ITEM,
    answer_and_wait,
    enter_as,
    open_workspace,
    settled,
    small_campaign,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in_at_the_root(page: Page, live_server, username: str, password: str) -> Page:
    page.goto(live_server.url + "/")
    expect(page).to_have_url(re.compile(re.escape(reverse("login"))))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("form button[type=submit]")
    expect(page.locator("header .account")).to_contain_text(username)
    return page


def on_screen(page: Page) -> int:
    return int(page.locator(ITEM).get_attribute("data-assignment"))


def item_of(assignment_id: int) -> int:
    return Assignment.objects.get(pk=assignment_id).item_id


def test_an_annotator_lands_on_their_campaigns_and_gets_the_sites_403_and_404(
    live_server, page, page_errors, screenshot
):
    anna = make_annotator("anna", password="annotate-pass-1")
    make_campaign(PASSAGE_RATING, annotators=[anna], name="Floods")
    log_in_at_the_root(page, live_server, "anna", "annotate-pass-1")
    expect(page).to_have_url(re.compile(r"/annotate/$"))
    expect(page.get_by_role("heading", name="Your annotation campaigns")).to_be_visible()
    expect(page.get_by_role("cell", name="Floods")).to_be_visible()

    response = page.goto(live_server.url + reverse("collection-list"))
    assert response.status == 403
    expect(page.get_by_role("heading", name="Not allowed")).to_be_visible()
    screenshot("annotator_403")
    # The site's page, styled, with its navigation; no researcher links.
    assert page.locator("header.topbar").evaluate("e => getComputedStyle(e).display") == "flex"
    expect(page.locator("header nav")).to_have_text("My campaigns")
    page.get_by_role("link", name="Back to your campaigns").click()
    expect(page).to_have_url(re.compile(r"/annotate/$"))

    response = page.goto(live_server.url + "/no-such-page/")
    assert response.status == 404
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    page.locator("header nav").get_by_role("link", name="My campaigns").click()
    expect(page).to_have_url(re.compile(r"/annotate/$"))
    assert [e for e in page_errors if not e.startswith("console: Failed to load resource")] == []


def test_a_researcher_lands_on_the_collections(live_server, page, researcher):
    log_in_at_the_root(page, live_server, "rita", "research-pass-1")
    expect(page).to_have_url(re.compile(re.escape(reverse("collection-list")) + "$"))


def _annotator_page(browser: Browser, live_server, user) -> Page:
    context = browser.new_context(viewport=LAPTOP)
    context.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    context.set_default_timeout(10_000)
    return enter_as(context.new_page(), live_server, user)


@pytest.mark.parametrize(
    ("policy", "ben_gets_annas"),
    [
        (Campaign.AssignmentPolicy.OVERLAP_FIRST, True),
        (Campaign.AssignmentPolicy.COVERAGE_FIRST, False),
    ],
)
def test_the_second_annotator_gets_what_the_first_labelled_under_overlap_first(
    browser, live_server, policy, ben_gets_annas
):
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = small_campaign(
        PASSAGE_RATING, 6, overlap=2, assignment_policy=policy, annotators=[anna, ben]
    )
    page_a = open_workspace(_annotator_page(browser, live_server, anna), live_server, campaign)
    annas = [item_of(on_screen(page_a))]
    answer_and_wait(page_a, "3", "Enter")
    annas.append(item_of(on_screen(page_a)))
    answer_and_wait(page_a, "4", "Enter")
    settled(page_a).context.close()  # anna leaves holding two more items

    page_b = open_workspace(_annotator_page(browser, live_server, ben), live_server, campaign)
    bens = [item_of(on_screen(page_b))]
    answer_and_wait(page_b, "3", "Enter")
    bens.append(item_of(on_screen(page_b)))
    settled(page_b).context.close()
    assert (bens == annas) is ben_gets_annas
    if not ben_gets_annas:
        assert not set(bens) & set(annas)


def test_the_new_campaign_form_counts_items_as_the_fields_change(
    live_server, login, researcher, page, page_errors, screenshot
):
    collection = report_collection()  # 8 passage x sub-question items
    make_annotator("anna"), make_annotator("ben")
    login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("campaign-create"))
    legends = page.locator("#campaign-form fieldset > legend")
    expect(legends).to_have_text(
        ["Campaign", "Which items", "Annotators and assignment", "Guidelines",
         "Post-editing (not blind)", "Quality control", "Crowd control", "Prolific"]
    )  # fmt: skip
    preview = page.locator("#campaign-preview")
    expect(preview).to_contain_text("Choose a collection")
    page.fill("#id_name", "Floods pilot")
    page.select_option("#id_collection", label=collection.name)
    expect(preview).to_contain_text("Choose a collection and a task type")
    page.select_option("#id_task_type", PASSAGE_RATING)
    expect(page.locator("#preview-items")).to_have_text("8")
    page.select_option("#id_selection_mode", "sample")
    expect(preview).to_contain_text("give the number of items to sample")
    page.fill("#id_sample_size", "3")
    page.keyboard.press("Tab")
    expect(page.locator("#preview-items")).to_have_text("3")
    page.fill("#id_attention_count", "2")
    page.keyboard.press("Tab")
    expect(preview).to_contain_text("+ 2 attention checks")
    # Overlap 3 with two annotators invited: the warning shows as the fields change.
    page.fill("#id_overlap", "3")
    page.keyboard.press("Tab")
    page.get_by_label("anna").check()
    page.get_by_label("ben").check()
    expect(preview.locator(".warning")).to_contain_text("but 2 annotators are invited")
    expect(preview).to_contain_text("9 labels needed at 3 per item")
    screenshot("campaign_form_preview")
    # A number past its bound: the preview names the field instead of a count.
    page.fill("#id_sample_size", "999999999")
    page.keyboard.press("Tab")
    expect(page.locator("#preview-errors")).to_contain_text("sample_size")
    page.fill("#id_sample_size", "3")
    page.keyboard.press("Tab")
    expect(page.locator("#preview-items")).to_have_text("3")
    page.get_by_role("button", name="Create campaign").click()
    expect(page.locator("#campaign-summary")).to_contain_text("3 items")
    expect(page.locator("#overlap-warning")).to_contain_text("but 2 annotators are invited")
    campaign = Campaign.objects.get(name="Floods pilot")
    assert campaign.items.regular().count() == 3 and campaign.items.controls().count() == 2
    assert campaign.assignment_policy == Campaign.AssignmentPolicy.OVERLAP_FIRST
    # The one 400 (the bound past its limit) is the preview's answer, not an error of the page.
    assert [e for e in page_errors if "status of 400" not in e] == []
    assert len(page_errors) == 1 and "/campaigns/preview/" in page_errors[0]


def test_undo_previous_item_change_cue_and_skip_feedback(
    live_server, page, page_errors, screenshot
):
    anna = make_annotator("anna")
    # The first four items share the topic and the sub-question; only the passage changes.
    campaign = small_campaign(PASSAGE_RATING, 4, overlap=1, annotators=[anna])
    open_workspace(enter_as(page, live_server, anna), live_server, campaign)
    new_passage = page.locator(f'{ITEM} .ws-cue[data-cue="passage"]')
    expect(new_passage).to_be_hidden()
    settled(page).keyboard.press("u")
    expect(page.locator("#ws-status")).to_contain_text("Nothing to undo")

    first = on_screen(page)
    answer_and_wait(page, "4", "Enter")
    second = on_screen(page)
    expect(new_passage).to_be_visible()  # same topic and sub-question, another passage
    expect(new_passage).to_have_text("New passage")
    expect(page.locator("#ws-status")).to_contain_text("Answer saved")
    screenshot("workspace_new_passage")

    # u: the answer just given comes back, filled in, and can be changed.
    settled(page).keyboard.press("u")
    expect(page.locator(f"{ITEM}[data-assignment='{first}']")).to_be_visible()
    expect(page.locator(f"{ITEM} input[name=rating][value='4']")).to_be_checked()
    expect(page.locator("#ws-status")).to_contain_text("open again")
    expect(page.locator("#ws-back .ws-undo")).to_have_count(0)  # one step
    assert Assignment.objects.get(pk=first).state == "reserved"
    answer_and_wait(page, "2", "Enter")
    assert on_screen(page) == second  # back to where the annotator was
    changed = Assignment.objects.get(pk=first)
    assert (changed.state, changed.answer["rating"]) == ("submitted", 2)
    assert changed.item.annotations_done == 1

    # The previous item: its answer, read-only; then back to work.
    page.get_by_role("link", name="Previous item").click()
    expect(page).to_have_url(re.compile(reverse("annotation-item", args=[campaign.slug, first])))
    expect(page.locator("#review-answer")).to_have_text("2")
    screenshot("workspace_previous_item")
    expect(page.locator(".ws-review input[name=rating][value='2']")).to_be_checked()
    page.get_by_role("link", name="Back to your current item").click()
    expect(page.locator(f"{ITEM}[data-assignment='{second}']")).to_be_visible()

    # Skip says what happened.
    settled(page).keyboard.press("s")
    expect(page.locator("#ws-status")).to_contain_text("Skipped")
    expect(page.locator(f"#item-slot [data-assignment='{second}']")).to_have_count(0)
    assert Assignment.objects.get(pk=second).state == "skipped"
    settled(page)  # the next item's prefetch has answered before the database is emptied
    assert page_errors == []
