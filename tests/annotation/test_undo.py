"""Undo of the last submission, the previous-item page, the status line after submit / skip,
and the change cue's data: server side."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Campaign, CampaignItem
from annotation.queue import queue
from annotation.task_types.answers import answer_to_draft, parse_answer
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from annotation.views.workspace import REOPENED, SAVED, SKIPPED
from annotation.workspace.submission import submit
from annotation.workspace.undo import UndoRefused, undo
from crux_app.models import Judgment

from .campaign_data import make_annotator, make_campaign, report_collection

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def url(name, assignment) -> str:
    return reverse(name, args=[assignment.campaign.slug, assignment.pk])


def rate(assignment, rating):
    return submit(assignment, {"rating": rating, "rationale": "Passage", "rationale_start": 0,
                               "rationale_end": 7}, 1000)  # fmt: skip


def started(overlap=1, **settings):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=overlap, annotators=[anna], **settings)
    return anna, campaign


def test_undo_reopens_the_latest_answer_as_a_draft_and_takes_its_label_back():
    anna, campaign = started()
    first = queue.next_item(campaign, anna).assignment
    rate(first, 4)
    second = queue.next_item(campaign, anna).assignment
    assert Judgment.objects.filter(judge__user=anna).count() == 1
    reopened = undo(first)
    assert reopened.state == Assignment.State.RESERVED and reopened.answer is None
    assert reopened.draft == {
        "rating": "4",
        "rationale": "Passage",
        "rationale_start": "0",
        "rationale_end": "7",
    }
    item = CampaignItem.objects.get(pk=first.item_id)
    assert (item.annotations_done, item.reserved_count) == (0, 1)
    assert not Judgment.objects.filter(judge__user=anna).exists()
    # The reopened item is shown before the one reserved after it; the prefetch is that one.
    assert queue.next_item(campaign, anna).assignment == first
    assert queue.next_item(campaign, anna, after=first.pk).assignment == second
    # Submitting it again stores the new answer, counted once.
    rate(Assignment.objects.get(pk=first.pk), 2)
    item.refresh_from_db()
    assert (item.annotations_done, item.reserved_count) == (1, 0)
    assert Judgment.objects.get(judge__user=anna).rating == 2


def test_only_the_latest_answer_can_be_undone_and_only_once():
    anna, campaign = started()
    first = queue.next_item(campaign, anna).assignment
    rate(first, 4)
    second = queue.next_item(campaign, anna).assignment
    rate(second, 1)
    with pytest.raises(UndoRefused, match="Only your latest answer"):
        undo(first)
    first.refresh_from_db()
    assert first.state == "submitted" and first.answer["rating"] == 4
    undo(second)
    with pytest.raises(UndoRefused, match="not submitted"):
        undo(second)
    # After the undo, the one before is the latest again (the workspace hides the button).
    assert Assignment.objects.latest_submitted(campaign.pk, anna.pk) == first


def test_no_undo_in_a_paused_campaign():
    anna, campaign = started()
    first = queue.next_item(campaign, anna).assignment
    rate(first, 4)
    Campaign.objects.filter(pk=campaign.pk).update(state=Campaign.State.PAUSED)
    with pytest.raises(UndoRefused, match="paused"):
        undo(first)
    first.refresh_from_db()
    assert first.state == "submitted"


def test_undo_gives_back_the_judgment_of_the_same_pair_from_another_campaign():
    anna = make_annotator("anna")
    collection = report_collection()
    older = make_campaign(PASSAGE_RATING, collection=collection, name="a", annotators=[anna])
    newer = make_campaign(PASSAGE_RATING, collection=collection, name="b", annotators=[anna])
    rate(queue.next_item(older, anna).assignment, 5)
    again = queue.next_item(newer, anna).assignment
    rate(again, 1)
    assert Judgment.objects.get(judge__user=anna).rating == 1
    undo(again)
    assert Judgment.objects.get(judge__user=anna).rating == 5


@pytest.mark.parametrize(
    ("task_type", "form"),
    [
        (PASSAGE_RATING, {"rating": "3", "rationale": "Passage 0", "rationale_start": "0",
                          "rationale_end": "9"}),
        (REPORT_COVERAGE, {"answer_0": "no", "answer_2": "yes", "span_2": "Floods",
                           "span_start_2": "0", "span_end_2": "6"}),
        (ANSWER_EQUIVALENCE, {"equivalent": "no"}),
        (FAILURE_CATEGORY, {"category": "C"}),
    ],
)  # fmt: skip
def test_an_answer_comes_back_as_the_form_that_gives_it(task_type, form):
    campaign = make_campaign(task_type)
    payload = campaign.items.first().payload
    answer = parse_answer(task_type, form, payload)
    assert parse_answer(task_type, answer_to_draft(task_type, answer), payload) == answer


def test_the_undo_view_returns_the_reopened_item_filled_in_without_a_second_undo():
    anna, campaign = started()
    client = client_for(anna)
    client.get(reverse("annotation-workspace", args=[campaign.slug]))
    first = Assignment.objects.get(annotator=anna)
    response = client.post(url("annotation-submit", first), {"rating": "4"}, **HTMX)
    html = response.content.decode()
    # The submit answer: status line, and the previous item link with its undo button.
    assert SAVED in html and 'id="ws-status"' in html
    assert f'href="{url("annotation-item", first)}"' in html
    assert f'hx-post="{url("annotation-undo", first)}"' in html
    response = client.post(url("annotation-undo", first), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-assignment="{first.pk}"' in html
    assert re.search(r'name="rating" value="4" checked', html)
    assert REOPENED in html and "ws-undo" not in html  # one step, until the next submission
    again = client.post(url("annotation-undo", first), **HTMX)
    assert again.status_code == 409 and "not submitted" in again.content.decode()


def test_undo_of_an_older_answer_is_a_409_and_changes_nothing():
    anna, campaign = started()
    client = client_for(anna)
    first = queue.next_item(campaign, anna).assignment
    rate(first, 4)
    rate(queue.next_item(campaign, anna).assignment, 2)
    response = client.post(url("annotation-undo", first), **HTMX)
    assert response.status_code == 409
    assert "Only your latest answer" in response.content.decode()
    first.refresh_from_db()
    assert first.state == "submitted" and first.answer["rating"] == 4
    # Without htmx: back to that item's page with the reason.
    response = client.post(url("annotation-undo", first), follow=True)
    assert "Only your latest answer" in response.content.decode()


def test_someone_elses_answer_cannot_be_undone_or_seen():
    anna, campaign = started(overlap=2)
    ben = make_annotator("ben")
    campaign.invited.add(ben)
    first = queue.next_item(campaign, anna).assignment
    rate(first, 4)
    client = client_for(ben)
    assert client.post(url("annotation-undo", first), **HTMX).status_code == 404
    assert client.get(url("annotation-item", first)).status_code == 404
    first.refresh_from_db()
    assert first.state == "submitted"


def test_the_previous_item_page_shows_the_answer_and_changes_only_the_latest():
    anna, campaign = started()
    client = client_for(anna)
    first = queue.next_item(campaign, anna).assignment
    rate(first, 4)
    second = queue.next_item(campaign, anna).assignment
    rate(second, 1)
    html = client.get(url("annotation-item", second)).content.decode()
    assert 'id="review-answer">1<' in html and "Change this answer" in html
    assert re.search(r'name="rating" value="1" checked', html)
    assert f'href="{url("annotation-item", first)}"' in html  # and the one before it
    assert "js/workspace.js" not in html and '<fieldset class="ws-readonly" disabled>' in html
    html = client.get(url("annotation-item", first)).content.decode()
    assert 'id="review-answer">4<' in html and "Change this answer" not in html
    assert "Only your latest answer can be changed" in html
    # Changing it from that page (a plain form) reopens it and shows it to work on.
    response = client.post(url("annotation-undo", second))
    assert response.url == url("annotation-item", second)
    html = client.get(response.url).content.decode()
    assert 'class="ws-item"' in html and re.search(r'name="rating" value="1" checked', html)


def test_skip_answers_with_a_visible_status():
    anna, campaign = started()
    client = client_for(anna)
    client.get(reverse("annotation-workspace", args=[campaign.slug]))
    held = Assignment.objects.get(annotator=anna)
    html = client.post(url("annotation-skip", held), **HTMX).content.decode()
    assert SKIPPED in html and 'id="ws-status"' in html and 'hx-swap-oob="true"' in html
    html = client.post(url("annotation-skip", held), **HTMX).content.decode()
    assert "already given back" in html
    # Without htmx the same words come as a message on the workspace page.
    response = client.post(url("annotation-skip", held), follow=True)
    assert "already given back" in response.content.decode()


def test_passage_items_carry_what_the_change_cue_compares():
    anna, campaign = started()
    html = client_for(anna).get(reverse("annotation-workspace", args=[campaign.slug]))
    html = html.content.decode()
    item = Assignment.objects.get(annotator=anna).item
    context = f'data-context="{item.payload["topic"]}|{item.payload["position"]}"'
    assert context in html and f'data-passage="{item.payload["passage_id"]}"' in html
    assert 'data-cue="passage" hidden>New passage<' in html
