"""The audit trail from the annotation side (a submission, a review decision and its merge,
a campaign's settings, an export downloaded) and its doors: the page, ``manage.py audit_log``
and ``/api/v1/collections/<name>/audit/`` (researchers only, with a token's user recorded)."""

import csv
import io
import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.queue import queue
from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import decide
from annotation.review.selection import QueueChoice
from annotation.workspace.submission import submit
from api.tokens import issue_token
from crux_app.audit.context import audit_context
from crux_app.models import AuditEvent, Judge, Judgment
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db

RATING = {"rating": 4, "rationale": "Passage 0", "rationale_start": 0, "rationale_end": 9}


def test_a_submission_records_the_label_and_its_judgment_by_the_annotator():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    with audit_context(user_id=anna.pk, username="anna", origin="web"):
        submit(assignment, RATING, 1500)
    [label] = AuditEvent.objects.filter(kind="assignment.update", row_id=assignment.pk)
    assert label.old["answer"] is None and label.new["answer"]["rating"] == 4
    assert (label.username, label.collection_id) == ("anna", campaign.collection_id)
    judgment = Judgment.objects.get(judge__user=anna)
    [mirrored] = AuditEvent.objects.filter(kind="judgment.insert", row_id=judgment.pk)
    assert mirrored.new["rating"] == 4 and mirrored.username == "anna"


def test_a_reservation_alone_is_not_recorded():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    queue.next_item(campaign, anna)
    assert not AuditEvent.objects.filter(table="annotation_assignment").exists()


def test_a_review_decision_and_its_merge_are_recorded(researcher):
    data = disagreement_collection()
    campaign = create_review_campaign(data.collection, "People", QueueChoice())
    item = campaign.items.order_by("position").first()
    with audit_context(user_id=researcher.pk, username="rita", origin="web"):
        decide(item, researcher, 4)
        call_command(
            "merge_adjudicated",
            "--collection",
            data.collection.name,
            "--name",
            "Reference",
            stdout=StringIO(),
        )
    [decision] = AuditEvent.objects.filter(kind="reviewdecision.insert")
    assert decision.new["label"] == 4 and decision.collection_id == data.collection.pk
    adjudicated = AuditEvent.objects.filter(kind="judgment.insert", new__judge_id=campaign.judge_id)
    assert adjudicated.count() == 1 and adjudicated.get().new["rating"] == 4
    merged = Judgment.objects.get(judge__name="adjudicated:merged:reference")
    assert AuditEvent.objects.filter(kind="judgment.insert", row_id=merged.pk).exists()
    assert AuditEvent.objects.filter(kind="reviewcampaign.insert").exists()


def test_an_aggregated_judge_and_its_rerun_are_recorded():
    data = disagreement_collection("rv")
    args = ("--collection", "rv", "--task", "passage_rating", "--name", "mv", "--format", "json")
    call_command("aggregate_labels", *args, "--method", "majority", stdout=StringIO())
    judge = Judge.objects.get(name="aggregated:mv")
    assert AuditEvent.objects.filter(kind="judge.insert", row_id=judge.pk).exists()
    run = AuditEvent.objects.get(kind="aggregationrun.insert")
    assert run.new["method"] == "majority" and run.collection_id == data.collection.pk
    inserted = AuditEvent.objects.filter(kind="judgment.insert", new__judge_id=judge.pk)
    assert inserted.count() == judge.judgments.count() == 4
    call_command("aggregate_labels", *args, "--method", "dawid_skene", stdout=StringIO())
    rerun = AuditEvent.objects.filter(kind__startswith="aggregationrun.").values_list(
        "kind", flat=True
    )
    assert "aggregationrun.insert" in rerun and len(rerun) >= 2


def test_campaign_settings_changed_are_recorded_with_old_and_new():
    campaign = make_campaign(overlap=1)
    campaign.overlap = 3
    campaign.save()
    [changed] = AuditEvent.objects.filter(kind="campaign.update", row_id=campaign.pk)
    assert (changed.old["overlap"], changed.new["overlap"]) == (1, 3)


def test_an_export_download_is_recorded_with_who_and_what(researcher_client, researcher):
    campaign = make_campaign(overlap=1)
    url = reverse("campaign-export", args=[campaign.pk, "csv"])
    response = researcher_client.get(url)
    assert response.status_code == 200
    [download] = AuditEvent.objects.filter(kind="export.download")
    assert download.username == "rita" and download.origin == "web"
    assert download.context["path"] == url and "attachment" in download.detail["file"]


def _changed_judgment(researcher) -> Judgment:
    data = disagreement_collection()
    judgment = Judgment.objects.filter(topic__collection=data.collection).exclude(rating=0)[0]
    with audit_context(user_id=researcher.pk, username="rita", origin="web"):
        judgment.rating = 0
        judgment.save()
    return judgment


def test_the_page_lists_and_filters_a_collections_records(researcher_client, researcher):
    judgment = _changed_judgment(researcher)
    collection = judgment.topic.collection
    url = reverse("collection-audit", args=[collection.pk])
    page = researcher_client.get(url, {"kind": "judgment.update"}).content.decode()
    assert "judgment.update" in page and "rita" in page and "judgment.insert" not in page
    assert "judgment.insert" in researcher_client.get(url, {"kind": "judgment."}).content.decode()
    assert "No records" in researcher_client.get(url, {"user": "nobody"}).content.decode()
    bad = researcher_client.get(url, {"since": "yesterday"})
    assert bad.status_code == 400 and b"since" in bad.content


def test_the_page_is_for_researchers_only(client, researcher):
    judgment = _changed_judgment(researcher)
    url = reverse("collection-audit", args=[judgment.topic.collection_id])
    client.force_login(make_annotator("anna"))
    assert client.get(url).status_code in (403, 404)


def test_the_command_prints_json_and_csv(researcher):
    judgment = _changed_judgment(researcher)
    name = judgment.topic.collection.name
    out = StringIO()
    call_command("audit_log", "--collection", name, "--kind", "judgment.update", stdout=out)
    [row] = json.loads(out.getvalue())
    assert row["username"] == "rita" and row["new"]["rating"] == 0 != row["old"]["rating"]
    out = StringIO()
    call_command(
        "audit_log", "--collection", name, "--since", "2000-01-01", "--format", "csv", stdout=out
    )
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert {"judgment.insert", "judgment.update"} <= {r["kind"] for r in rows}
    out = StringIO()
    call_command("audit_log", "--collection", name, "--since", "2999-01-01", stdout=out)
    assert json.loads(out.getvalue()) == []
    with pytest.raises(CommandError, match="--since"):
        call_command("audit_log", "--collection", name, "--since", "soon", stdout=StringIO())


def test_the_api_answers_researchers_and_records_a_tokens_user(client, researcher):
    judgment = _changed_judgment(researcher)
    name = judgment.topic.collection.name
    row, token = issue_token(researcher, "laptop")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    url = f"/api/v1/collections/{name}/audit/"
    answer = client.get(url, {"kind": "judgment.update"}, **auth).json()
    [record] = answer["results"]
    assert record["username"] == "rita" and record["new"]["rating"] == 0
    assert client.get(url, {"since": "x"}, **auth).status_code == 400
    assert client.get(url, {"user": "1\x00"}, **auth).status_code == 400
    assert client.get("/api/v1/collections/ghost/audit/", **auth).status_code == 404
    annotator = make_annotator("anna")
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    # A write through the API is recorded as the token's user.
    client.logout()
    bob = get_user_model().objects.get(pk=researcher.pk)
    response = client.post(
        "/api/v1/collections/",
        data={"name": "from-api", "kind": "report"},
        content_type="application/json",
        **auth,
    )
    assert response.status_code in (200, 201), response.content
    [created] = AuditEvent.objects.filter(kind="collection.insert", new__name="from-api")
    assert (created.username, created.origin) == (bob.username, "api")
    assert created.context["token"] == row.pk
