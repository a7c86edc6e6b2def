"""A post-editing campaign in a real browser: the notice, an item pre-filled with the LLM's
rating that the annotator keeps with Enter, the next (prefetched) one changed with a key, the
labels under the post-edit judge, and the kept share on the researcher's campaign page."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment
from annotation.task_types.names import PASSAGE_RATING
from crux_app.models import Judge, Judgment
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator, make_campaign, report_collection
from tests.annotation.test_annotation_browser import ITEM, answer_and_wait, enter_as, settled
from tests.crux_app.factories import make_judge, rate_passages

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOTICE = "Post-editing: the suggestion shown is gpt-judge's label; this campaign is not blind."


def llm_rating(position: int, index: int) -> int:
    return (position + index) % 6


def suggestion_of(assignment_pk: str) -> int:
    item = Assignment.objects.get(pk=int(assignment_pk)).item
    index = int(item.payload["passage_id"].rsplit("#", 1)[1])
    return llm_rating(item.payload["position"], index)


def test_an_annotator_keeps_one_suggestion_and_changes_another(
    live_server, page, page_errors, researcher
):
    anna = make_annotator("anna")
    collection = report_collection()
    llm = make_judge("gpt-judge")
    rate_passages(llm, collection.topics.get(), list(collection.passages.all()), llm_rating)
    campaign = make_campaign(
        PASSAGE_RATING, collection=collection, annotators=[anna], overlap=1, suggestion_judge=llm
    )
    keep = list(campaign.items.order_by("id").values_list("pk", flat=True)[:2])
    campaign.items.exclude(pk__in=keep).delete()
    campaign.selection = {**campaign.selection, "items": 2}
    campaign.save(update_fields=["selection"])

    enter_as(page, live_server, anna)
    page.goto(live_server.url + reverse("annotation-workspace", args=[campaign.slug]))
    expect(page.locator("#post-edit-notice")).to_have_text(NOTICE)
    assert_accessible(settled(page))
    item = page.locator(ITEM)
    first = item.get_attribute("data-assignment")
    suggested = suggestion_of(first)
    expect(page.locator(f"{ITEM} input[name=rating][value='{suggested}']")).to_be_checked()
    expect(page.locator(f"{ITEM} .ws-suggestion")).to_contain_text("Pre-filled with the suggestion")
    answer_and_wait(page, "Enter")  # kept as suggested

    second = settled(page).locator(ITEM).get_attribute("data-assignment")
    suggested_second = suggestion_of(second)
    expect(page.locator(f"{ITEM} input[name=rating][value='{suggested_second}']")).to_be_checked()
    changed = (suggested_second + 1) % 6
    page.keyboard.press(str(changed))
    page.keyboard.press("Enter")
    expect(page.locator(".ws-done")).to_contain_text("All done")

    done = Assignment.objects.filter(annotator=anna, state="submitted").order_by("submitted_at")
    assert [(a.answer["rating"], a.kept_suggestion) for a in done] == [
        (suggested, True),
        (changed, False),
    ]
    assert Judgment.objects.filter(judge__name="user:anna+post-edit").count() == 2
    assert not Judge.objects.filter(user=anna).exists()

    enter_as(page, live_server, researcher)
    page.goto(live_server.url + reverse("campaign-detail", args=[campaign.pk]))
    expect(page.locator("#post-edit-notice")).to_contain_text(NOTICE)
    expect(page.locator("#kept-share")).to_have_text("50%")
    expect(page.locator("#kept-suggestions")).to_contain_text("1 of 2")
    assert page_errors == []
