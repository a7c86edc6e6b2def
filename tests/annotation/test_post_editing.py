"""Post-editing campaigns (TREC 2024): the form's judge choice and its refusals, the workspace
pre-filled with the judge's label and saying it is not blind, labels mirrored under the
annotator's post-edit judge, kept / changed suggestions, undo, the CSV export's columns."""

import html
import io
import re

import pandas as pd
import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.labels.post_editing import kept_share, opening_draft
from annotation.models import Assignment, Campaign
from annotation.queue import queue
from annotation.queue.selection import SelectionError
from annotation.task_types.names import ANSWER_EQUIVALENCE, PASSAGE_RATING, REPORT_COVERAGE
from annotation.workspace.submission import submit
from annotation.workspace.undo import undo
from crux_app.models import Judge, Judgment
from tests.crux_app.factories import make_judge, rate_passages

from .campaign_data import (
    make_annotator,
    make_campaign,
    qa_collection,
    report_collection,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
NOTICE = "Post-editing: the suggestion shown is gpt-judge's label; this campaign is not blind."


def text(response) -> str:
    """The page as read (entities such as ``'`` unescaped)."""
    return html.unescape(response.content.decode())


def suggested(position: int, index: int) -> int:
    """The LLM's rating of (sub-question position, passage index)."""
    return (position + index) % 6


def rated_collection(n_rated: int = 4):
    """``report_collection`` (4 passages) whose first ``n_rated`` passages the LLM rated."""
    collection = report_collection()
    llm = make_judge("gpt-judge")
    topic = collection.topics.get()
    passages = list(collection.passages.order_by("external_id"))
    rate_passages(llm, topic, passages[:n_rated], rating=suggested)
    return collection, llm


def post_editing_campaign(annotators=(), n_rated: int = 4, **settings):
    collection, llm = rated_collection(n_rated)
    campaign = make_campaign(
        PASSAGE_RATING,
        collection=collection,
        annotators=annotators,
        overlap=1,
        suggestion_judge=llm,
        **settings,
    )
    return campaign, llm


def expected_rating(item) -> int:
    index = int(item.payload["passage_id"].rsplit("#", 1)[1])
    return suggested(item.payload["position"], index)


def form_data(collection, **extra) -> dict:
    return {
        "name": "Post-edit pilot",
        "collection": collection.pk,
        "task_type": PASSAGE_RATING,
        "selection_mode": "every",
        "seed": 0,
        "tau": 3,
        "overlap": 1,
        "reservation_seconds": 600,
        "gold_count": 0,
        "attention_count": 0,
        "control_interval": 5,
        "gold_min_accuracy": 0.7,
        "gold_tolerance": 1,
        "attention_min_pass_rate": 1.0,
        "qc_min_answers": 1,
        "qc_action": "warn",
        **extra,
    }


# ---- The campaign form --------------------------------------------------------------------


def test_the_form_creates_a_post_editing_campaign_and_says_it_is_not_blind(researcher_client):
    collection, llm = rated_collection()
    form = text(researcher_client.get(reverse("campaign-create")))
    assert "Post-editing (not blind)" in form and "Leave empty for a blind campaign" in form
    assert "Task types that can be post-edited: " in form
    response = researcher_client.post(
        reverse("campaign-create"), form_data(collection, suggestion_judge=llm.pk)
    )
    campaign = Campaign.objects.get(name="Post-edit pilot")
    assert response.url == reverse("campaign-detail", args=[campaign.pk])
    assert campaign.suggestion_judge == llm and campaign.is_post_editing
    page = text(researcher_client.get(response.url))
    assert NOTICE in page and 'id="kept-suggestions"' in page


def test_a_campaign_is_blind_by_default(researcher_client):
    collection, _ = rated_collection()
    researcher_client.post(reverse("campaign-create"), form_data(collection))
    campaign = Campaign.objects.get(name="Post-edit pilot")
    assert campaign.suggestion_judge is None and not campaign.is_post_editing
    page = text(researcher_client.get(reverse("campaign-detail", args=[campaign.pk])))
    assert "post-edit-notice" not in page


def test_the_form_refuses_a_human_judge(researcher_client):
    collection, _ = rated_collection()
    expert = make_judge("expert", kind=Judge.Kind.HUMAN)
    rate_passages(expert, collection.topics.get(), list(collection.passages.all()))
    response = researcher_client.post(
        reverse("campaign-create"), form_data(collection, suggestion_judge=expert.pk)
    )
    assert response.status_code == 400
    assert "choose a machine judge (LLM or ensemble)" in text(response)
    assert not Campaign.objects.exists()


def test_the_form_refuses_a_judge_of_another_collection(researcher_client):
    collection = report_collection()
    other = report_collection("elsewhere")
    llm = make_judge("gpt-judge")
    rate_passages(llm, other.topics.get(), list(other.passages.all()))
    response = researcher_client.post(
        reverse("campaign-create"), form_data(collection, suggestion_judge=llm.pk)
    )
    assert response.status_code == 400
    page = text(response)
    assert "judge 'gpt-judge' has no labels on these items of collection" in page
    assert not Campaign.objects.exists()


def test_the_form_refuses_a_task_type_that_cannot_read_a_judges_labels(researcher_client):
    qa = qa_collection()
    llm = make_judge("gpt-judge")
    data = form_data(qa.collection, task_type=ANSWER_EQUIVALENCE, suggestion_judge=llm.pk)
    response = researcher_client.post(reverse("campaign-create"), data)
    assert response.status_code == 400
    assert "cannot show a judge's labels as suggestions" in text(response)


def test_create_campaign_refuses_a_human_judge_whatever_the_caller():
    collection, _ = rated_collection()
    expert = make_judge("expert", kind=Judge.Kind.HUMAN)
    with pytest.raises(SelectionError, match="not a machine judge"):
        make_campaign(PASSAGE_RATING, collection=collection, suggestion_judge=expert)
    assert not Campaign.objects.exists()


# ---- The workspace ------------------------------------------------------------------------


def test_the_workspace_opens_pre_filled_with_the_suggestion_and_says_so(client):
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    client.force_login(anna)
    page = text(client.get(reverse("annotation-workspace", args=[campaign.slug])))
    assert NOTICE in page
    shown = int(re.search(r'data-assignment="(\d+)"', page).group(1))
    item = Assignment.objects.get(pk=shown).item
    checked = re.findall(r'name="rating" value="(\d)" checked', page)
    assert checked == [str(expected_rating(item))]
    assert 'data-suggestion="shown"' in page
    # What was shown is kept on the assignment.
    assert Assignment.objects.get(pk=shown).suggestion == {"rating": expected_rating(item)}


def test_an_item_without_a_suggestion_opens_empty(client):
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna], n_rated=3)
    unrated = campaign.items.filter(payload__passage_id__endswith="#3")
    campaign.items.exclude(pk__in=unrated.values("pk")).delete()
    client.force_login(anna)
    page = text(client.get(reverse("annotation-workspace", args=[campaign.slug])))
    assert NOTICE in page
    assert not re.findall(r'name="rating" value="\d" checked', page)
    assert 'data-suggestion="none"' in page and "No suggestion for this item" in page


def test_a_blind_campaign_shows_no_suggestion(client):
    anna = make_annotator("anna")
    collection, _ = rated_collection()
    campaign = make_campaign(PASSAGE_RATING, collection=collection, annotators=[anna])
    client.force_login(anna)
    page = text(client.get(reverse("annotation-workspace", args=[campaign.slug])))
    assert "post-edit-notice" not in page and "ws-suggestion" not in page
    assert not re.findall(r'name="rating" value="\d" checked', page)


def test_the_annotators_own_draft_wins_over_the_suggestion(client):
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    assignment = queue.next_item(campaign, anna).assignment
    other = (expected_rating(assignment.item) + 1) % 6
    client.force_login(anna)
    client.post(
        reverse("annotation-draft", args=[campaign.slug, assignment.pk]), {"rating": str(other)}
    )
    page = text(client.get(reverse("annotation-workspace", args=[campaign.slug])))
    assert re.findall(r'name="rating" value="(\d)" checked', page) == [str(other)]


# ---- Submitting: the post-edit judge, kept or changed ---------------------------------------


def test_a_submit_mirrors_under_the_post_edit_judge_not_the_blind_one(client):
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    client.force_login(anna)
    page = text(client.get(reverse("annotation-workspace", args=[campaign.slug])))
    shown = int(re.search(r'data-assignment="(\d+)"', page).group(1))
    url = reverse("annotation-submit", args=[campaign.slug, shown])
    response = client.post(url, {"rating": "5", "rationale": ""}, **HTMX)
    assert response.status_code == 200
    edited = Judge.objects.get(name="user:anna+post-edit")
    assert edited.kind == Judge.Kind.POST_EDITED and edited.user is None
    assert not Judge.objects.filter(user=anna).exists()
    assert not Judge.objects.filter(name="user:anna").exists()
    item = Assignment.objects.get(pk=shown).item
    (mirrored,) = Judgment.objects.filter(judge=edited)
    assert (mirrored.subquestion_id, mirrored.passage_id, mirrored.rating) == (
        item.subquestion_id,
        item.passage_id,
        5,
    )


def test_blind_and_post_edited_labels_of_one_person_stay_apart():
    anna = make_annotator("anna")
    campaign, llm = post_editing_campaign([anna])
    blind = make_campaign(
        PASSAGE_RATING, collection=campaign.collection, annotators=[anna], name="blind"
    )
    submit(queue.next_item(blind, anna).assignment, {"rating": 0, "rationale": ""})
    submit(queue.next_item(campaign, anna).assignment, {"rating": 1, "rationale": ""})
    assert Judge.objects.get(user=anna).name == "user:anna"
    assert Judgment.objects.filter(judge__name="user:anna").count() == 1
    assert Judgment.objects.filter(judge__name="user:anna+post-edit").count() == 1


def test_kept_and_changed_suggestions_and_their_share(researcher_client):
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign, _ = post_editing_campaign([anna, ben])
    # anna keeps 2 (one with a rationale added: the label is unchanged) and changes 1; ben
    # keeps 1. Kept 3 of 4: 75%.
    plan = [(anna, True, "Passage"), (anna, True, ""), (anna, False, ""), (ben, True, "")]
    for who, keep, rationale in plan:
        assignment = queue.next_item(campaign, who).assignment
        rating = expected_rating(assignment.item)
        answer = {"rating": rating if keep else (rating + 2) % 6, "rationale": rationale}
        result = submit(assignment, answer)
        assert result.assignment.kept_suggestion is keep
    share = kept_share(campaign)
    assert (share.kept, share.changed, share.n, share.share) == (3, 1, 4, 0.75)
    page = text(researcher_client.get(reverse("campaign-detail", args=[campaign.pk])))
    assert "3 of 4" in page and '<b id="kept-share">75%</b>' in page


def test_report_coverage_can_be_post_edited_and_kept_compares_the_answers():
    anna = make_annotator("anna")
    collection = report_collection()
    llm = make_judge("gpt-judge")
    topic = collection.topics.get()
    outputs = list(collection.outputs.order_by("pk"))
    real = list(topic.subquestions.filter(is_placeholder=False).order_by("position"))
    Judgment.objects.bulk_create(
        Judgment(
            judge=llm,
            topic=topic,
            subquestion=sq,
            output=o,
            task=Judgment.Task.REPORT_COVERAGE,
            rating=int(sq.position == 0),
        )
        for sq in real
        for o in outputs
    )
    campaign = make_campaign(
        REPORT_COVERAGE, collection=collection, annotators=[anna], suggestion_judge=llm
    )
    first = queue.next_item(campaign, anna).assignment
    marks = [
        {"position": q["position"], "answerable": int(q["position"] == 0), "span": ""}
        for q in first.item.payload["questions"]
    ]
    assert submit(first, {"answers": marks}).assignment.kept_suggestion is True
    second = queue.next_item(campaign, anna).assignment
    flipped = [{**m, "answerable": 1} for m in marks]
    assert submit(second, {"answers": flipped}).assignment.kept_suggestion is False
    assert Judgment.objects.filter(judge__name="user:anna+post-edit").count() == 2 * len(real)


def test_undo_removes_the_post_edited_label_and_keeps_the_blind_one():
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    blind = make_campaign(
        PASSAGE_RATING, collection=campaign.collection, annotators=[anna], name="blind"
    )
    blind_item = queue.next_item(blind, anna).assignment
    submit(blind_item, {"rating": 0, "rationale": ""})
    # The same (sub-question, passage) in the post-editing campaign.
    same = campaign.items.get(
        subquestion_id=blind_item.item.subquestion_id, passage_id=blind_item.item.passage_id
    )
    campaign.items.exclude(pk=same.pk).delete()
    held = queue.next_item(campaign, anna).assignment
    done = submit(held, {"rating": 4, "rationale": ""}).assignment
    assert done.kept_suggestion is (expected_rating(same) == 4)
    reopened = undo(done)
    assert reopened.kept_suggestion is None
    assert not Judgment.objects.filter(judge__name="user:anna+post-edit").exists()
    # The blind label is untouched and does not stand in for the post-edited one.
    assert list(Judgment.objects.filter(judge__name="user:anna").values_list("rating")) == [(0,)]


def test_the_csv_export_says_which_labels_were_post_edited(researcher_client):
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    assignment = queue.next_item(campaign, anna).assignment
    rating = expected_rating(assignment.item)
    submit(assignment, {"rating": rating, "rationale": ""})
    response = researcher_client.get(reverse("campaign-export", args=[campaign.pk, "csv"]))
    frame = pd.read_csv(io.StringIO(response.content.decode()))
    row = frame.iloc[0]
    assert bool(row["post_edited"]) and row["suggestion_judge"] == "gpt-judge"
    assert (int(row["suggestion"]), bool(row["kept_suggestion"])) == (rating, True)
    blind = make_campaign(
        PASSAGE_RATING, collection=campaign.collection, annotators=[anna], name="blind"
    )
    submit(queue.next_item(blind, anna).assignment, {"rating": 2, "rationale": ""})
    response = researcher_client.get(reverse("campaign-export", args=[blind.pk, "csv"]))
    frame = pd.read_csv(io.StringIO(response.content.decode()))
    assert not frame["post_edited"].any() and frame["kept_suggestion"].isna().all()


def test_gold_items_show_the_suggestion_but_stay_out_of_the_kept_share():
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna], control_interval=1)
    first = queue.next_item(campaign, anna).assignment
    # The other items gold: a gold item opens like any other (a missing suggestion would
    # tell it apart), and is due after one ordinary item.
    campaign.items.exclude(pk=first.item_id).update(is_gold=True, gold_answer={"rating": 0})
    changed = (expected_rating(first.item) + 1) % 6
    assert submit(first, {"rating": changed, "rationale": ""}).assignment.kept_suggestion is False
    gold = queue.next_item(campaign, anna).assignment
    assert gold.item.is_gold
    assert opening_draft(campaign, gold)["rating"] == str(expected_rating(gold.item))
    result = submit(gold, {"rating": expected_rating(gold.item), "rationale": ""})
    assert result.assignment.kept_suggestion is True
    share = kept_share(campaign)
    assert (share.kept, share.changed) == (0, 1)


def test_the_review_page_of_a_submitted_item_says_it_is_not_blind(client):
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    assignment = queue.next_item(campaign, anna).assignment
    submit(assignment, {"rating": 1, "rationale": ""})
    client.force_login(anna)
    page = client.get(reverse("annotation-item", args=[campaign.slug, assignment.pk]))
    assert NOTICE in text(page)


def test_the_api_hands_out_the_suggestion_and_reports_whether_it_was_kept():
    anna = make_annotator("anna")
    campaign, _ = post_editing_campaign([anna])
    api = APIClient()
    api.force_authenticate(user=anna)
    mine = api.post(f"/api/v1/annotate/{campaign.slug}/next/").json()["assignment"]
    item = Assignment.objects.get(pk=mine["id"]).item
    assert mine["suggestion"] == {"rating": expected_rating(item)}
    url = f"/api/v1/annotate/{campaign.slug}/assignments/{mine['id']}/submit/"
    done = api.post(url, {"rating": expected_rating(item)}, format="json")
    assert done.status_code == 201 and done.json()["kept_suggestion"] is True
