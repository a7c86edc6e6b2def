"""An annotator assigns nuggets in a real Chromium, keys only: 1 / 2 / 3 answer support /
partial support / not support, Enter submits; the LLM judge's labels never reach the page; each
answer is stored as the annotator's own ``NuggetAssignment`` and counts in the nugget agreement
source; a reviewer then decides a person-vs-LLM disagreement on the same pairs, blind."""

from collections import Counter
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Assignment, ReviewDecision
from annotation.queue import queue
from annotation.review.access import add_reviewer
from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from annotation.workspace.submission import submit
from crux_app.models import Collection, Judge
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.nuggets.assignment_task import TASK_KEY
from evaluation.nuggets.models import NuggetAssignment
from tests.accessibility import assert_accessible
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.annotation.test_annotation_browser import (
    ITEM,
    answer_and_wait,
    enter_as,
    open_workspace,
    settled,
)
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEYS = ["1", "2", "3", "1", "2", "3", "1"]  # one per (nugget, answer) of the collection
LABELS = {"1": "support", "2": "partial_support", "3": "not_support"}


def test_nuggets_are_assigned_with_keys_1_2_3_blind_and_mirrored(
    page, live_server, page_errors, tmp_path
):
    load_all(tmp_path)  # the LLM judge "gpt" labelled every pair
    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())
    collection = Collection.objects.get(name=NAME)
    anna = make_annotator("anna")
    campaign = make_campaign(TASK_KEY, collection=collection, annotators=[anna], overlap=1)
    enter_as(page, live_server, anna)
    open_workspace(page, live_server, campaign)

    item = page.locator(ITEM)
    expect(item.locator(".ws-nugget")).not_to_be_empty()
    expect(item.locator(".ws-importance")).to_have_text("vital")
    expect(item.locator(".ws-sentences li").first).to_have_text(
        "The moon's gravity pulls on the oceans."
    )
    expect(page.locator(".ws-keys")).to_contain_text("1 / 2 / 3")
    assert_accessible(settled(page))
    html = page.content()
    assert "gpt" not in html  # the LLM judge is named nowhere ...
    assert item.locator("input[name=assignment]:checked").count() == 0  # ... nor preselected

    settled(page)
    page.keyboard.press("Enter")  # no answer yet: the task's own hint, nothing sent
    expect(item.locator(".ws-hint")).to_have_text(
        "Answer first: press 1 (support), 2 (partial support) or 3 (not support)."
    )
    page.keyboard.press("2")
    expect(item.locator("input[value=partial_support]")).to_be_checked()
    page.keyboard.press("1")  # a second key changes the answer
    expect(item.locator("input[value=support]")).to_be_checked()
    answer_and_wait(page, "Enter")
    for key in KEYS[1:]:
        answer_and_wait(page, key, "Enter")
    expect(page.locator("#item-slot .ws-done")).to_be_visible()
    assert page_errors == []

    judge = Judge.objects.get(user=anna)
    done = Assignment.objects.submitted().filter(campaign=campaign).select_related("item")
    assert Counter(a.answer["assignment"] for a in done) == Counter(LABELS[k] for k in KEYS)
    mirrored = {
        (row.nugget_id, row.output_id): row.assignment
        for row in NuggetAssignment.objects.filter(judge=judge)
    }
    assert mirrored == {
        (a.item.payload["nugget_id"], a.item.output_id): a.answer["assignment"] for a in done
    }
    report = build_report(collection, AgreementOptions())
    task = next(t for t in report.tasks if t.key == "nugget_assignment")
    assert task.labels == {"gpt": 7, "user:anna": 7}


def test_a_reviewer_decides_a_nugget_disagreement_blind(
    page, live_server, page_errors, login, tmp_path
):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    anna = make_annotator("anna")
    campaign = make_campaign(TASK_KEY, collection=collection, annotators=[anna], overlap=1)
    while (assignment := queue.next_item(campaign, anna).assignment) is not None:
        submit(assignment, {"assignment": "not_support"})  # gpt supports 2 of the 7
    review = create_review_campaign(
        collection, "Nugget review", QueueChoice(task_type=TASK_KEY, kind="annotator_machine")
    )
    get_user_model().objects.create_user("rita", password="rita-pass-2026")
    add_reviewer(review, "rita")
    login("rita", "rita-pass-2026")
    page.goto(live_server.url + reverse("review-workspace", args=[review.slug]))
    first = review.items.order_by("position").first()
    nugget = first.payload["details"][0][1]
    expect(page.get_by_text(nugget)).to_be_visible()
    expect(page.get_by_text("Nugget (vital)")).to_be_visible()
    expect(page.locator(".rv-option")).to_have_count(2)
    assert_accessible(page)
    html = page.content()
    assert "gpt" not in html and "user:anna" not in html
    page.keyboard.press("a")
    page.keyboard.press("Enter")
    expect(page.locator("#rv-progress")).to_contain_text("1 / ")
    decision = ReviewDecision.objects.get(item=first)
    assert decision.label in {"support", "partial_support", "not_support"}
    stored = NuggetAssignment.objects.get(judge=review.judge)
    assert stored.assignment == decision.label
    assert page_errors == []
