"""Researchers' campaign pages and exports: create, progress, QC, state, invite, gold, CSV."""

import io
import json

import pandas as pd
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.campaigns.setup import SelectionOptions
from annotation.models import Campaign
from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING, REPORT_COVERAGE
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign, report_collection

pytestmark = pytest.mark.django_db


def detail(campaign) -> str:
    return reverse("campaign-detail", args=[campaign.pk])


def test_create_a_campaign_from_the_form(researcher_client):
    collection = report_collection()
    anna = make_annotator("anna")
    response = researcher_client.post(
        reverse("campaign-create"),
        {
            "name": "Floods pilot",
            "collection": collection.pk,
            "task_type": PASSAGE_RATING,
            "selection_mode": "sample",
            "sample_size": 5,
            "seed": 3,
            "tau": 3,
            "overlap": 3,
            "per_annotator_cap": 4,
            "reservation_seconds": 600,
            "guidelines_md": "# Rate\nBe *strict*.",
            "gold_count": 0,
            "attention_count": 2,
            "control_interval": 5,
            "gold_min_accuracy": 0.7,
            "gold_tolerance": 1,
            "attention_min_pass_rate": 1.0,
            "qc_min_answers": 1,
            "qc_action": "block",
            "annotators": [anna.pk],
        },
    )
    campaign = Campaign.objects.get(name="Floods pilot")
    assert response.url == detail(campaign)
    assert (campaign.overlap, campaign.per_annotator_cap, campaign.qc_action) == (3, 4, "block")
    assert campaign.items.regular().count() == 5 and campaign.items.controls().count() == 2
    assert list(campaign.invited.all()) == [anna]
    assert campaign.selection["mode"] == "sample" and campaign.created_by.username == "rita"


def test_the_form_reports_selection_errors_on_the_field(researcher_client):
    collection = report_collection()
    response = researcher_client.post(
        reverse("campaign-create"),
        {
            "name": "Equivalence",
            "collection": collection.pk,
            "task_type": "answer_equivalence",
            "selection_mode": "every",
            "seed": 0,
            "tau": 3,
            "overlap": 2,
            "reservation_seconds": 600,
            "gold_count": 0,
            "attention_count": 0,
            "control_interval": 5,
            "gold_min_accuracy": 0.7,
            "gold_tolerance": 1,
            "attention_min_pass_rate": 1.0,
            "qc_min_answers": 1,
            "qc_action": "warn",
        },
    )
    assert response.status_code == 400
    assert "generated answers on topics with gold answers" in response.content.decode()
    assert not Campaign.objects.exists()


def test_progress_page_shows_annotators_qc_and_items(researcher_client):
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(
        overlap=2,
        control_interval=1,
        annotators=[anna, ben],
        options=SelectionOptions(mode="every", attention_count=1),
    )
    for user, right in ((anna, True), (ben, False)):
        submit(queue.next_item(campaign, user).assignment, {"rating": 3}, 2000)
        check = queue.next_item(campaign, user).assignment
        expected = check.item.expected_answer["rating"]
        submit(check, {"rating": expected if right else (expected + 3) % 6}, 4000)
    response = researcher_client.get(detail(campaign))
    assert response.status_code == 200
    rows = {r.username: r for r in response.context["progress"].annotators}
    assert (rows["anna"].submitted, rows["anna"].controls, rows["anna"].median_ms) == (1, 1, 3000)
    assert rows["anna"].quality.attention_passed == 1 and not rows["anna"].quality.flagged
    assert rows["ben"].quality.flagged and not rows["ben"].blocked  # action is warn
    html = response.content.decode()
    assert "warning" in html and "median time per item 3.0 s" in html
    assert response.context["progress"].summary["labels"] == 2
    items = response.context["items"].object_list
    assert len(items) == campaign.items.count()


def test_pause_resume_close(researcher_client):
    campaign = make_campaign()
    url = reverse("campaign-state", args=[campaign.pk])
    for action, state in (("pause", "paused"), ("resume", "open"), ("close", "closed")):
        researcher_client.post(url, {"action": action})
        campaign.refresh_from_db()
        assert campaign.state == state


def test_invite_creates_an_annotator_account(researcher_client):
    campaign = make_campaign()
    url = reverse("campaign-invite", args=[campaign.pk])
    researcher_client.post(url, {"username": "newbie", "password": "long-enough-1"})
    user = campaign.invited.get()
    assert user.username == "newbie" and user.check_password("long-enough-1")
    response = researcher_client.post(url, {"username": "ghost"}, follow=True)
    assert "a new account needs a password" in response.content.decode()


def test_gold_upload_reports_the_line(researcher_client):
    campaign = make_campaign()
    item = campaign.items.order_by("id").first()
    url = reverse("campaign-gold", args=[campaign.pk])
    good = SimpleUploadedFile("gold.csv", f"item,answer\n{item.pk},5\n".encode())
    researcher_client.post(url, {"file": good})
    item.refresh_from_db()
    assert item.gold_answer == {"rating": 5}
    bad = SimpleUploadedFile("g2.csv", f"item,answer\n{item.pk},x\n".encode())
    response = researcher_client.post(url, {"file": bad}, follow=True)
    assert "g2.csv, line 2, column answer" in response.content.decode()


def test_exports_csv_and_platform_shapes(researcher_client, tmp_path):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    for rating in (5, 1):
        a = queue.next_item(campaign, anna).assignment
        submit(a, {"rating": rating, "rationale": "Passage", "rationale_start": 0,
                   "rationale_end": 7}, 1000)  # fmt: skip
    response = researcher_client.get(reverse("campaign-export", args=[campaign.pk, "csv"]))
    frame = pd.read_csv(io.StringIO(response.content.decode()))
    assert list(frame["rating"]) == [5, 1] and set(frame["annotator"]) == {"anna"}
    qrels = researcher_client.get(
        reverse("campaign-export", args=[campaign.pk, "qrels"]) + "?annotator=anna"
    )
    lines = [json.loads(line) for line in qrels.content.decode().splitlines()]
    assert lines[0]["relevances"] == {"0": 5, "1": -1, "2": -1}
    assert lines[0]["rationales"]["0"] == "Passage" and lines[0]["id"] == "duc-1"
    wrong = researcher_client.get(reverse("campaign-export", args=[campaign.pk, "qlabels"]))
    assert wrong.status_code == 404
    # The same from the command line.
    out = tmp_path / "anna.jsonl"
    call_command("export_campaign", "--campaign", campaign.slug, "--format", "qrels",
                 "--annotator", "anna", str(out))  # fmt: skip
    assert out.read_text() == qrels.content.decode()
    with pytest.raises(CommandError, match="does not fit task"):
        call_command("export_campaign", "--campaign", campaign.slug, "--format", "qlabels",
                     "--annotator", "anna", str(out))  # fmt: skip


def test_report_coverage_exports_qlabels_and_a_row_per_subquestion(researcher_client, tmp_path):
    anna = make_annotator("anna")
    campaign = make_campaign(REPORT_COVERAGE, overlap=1, annotators=[anna])
    a = queue.next_item(campaign, anna).assignment
    submit(a, {"answers": [{"position": 0, "answerable": 1, "span": "Floods hit the delta."},
                           {"position": 2, "answerable": 0, "span": ""}]}, 900)  # fmt: skip
    url = reverse("campaign-export", args=[campaign.pk, "qlabels"]) + "?annotator=anna"
    line = json.loads(researcher_client.get(url).content)
    assert line["answerability"] == [1, -2, 0] and line["id"] == "bm25_duc-1"
    assert line["question_based_nugget"]["What is aspect 0 of duc-1?"] == "Floods hit the delta."
    out = tmp_path / "labels.csv"
    call_command("export_campaign", "--campaign", campaign.slug, "--format", "csv", str(out))
    frame = pd.read_csv(out)
    assert list(frame["subquestion_position"]) == [0, 2] and list(frame["answerable"]) == [1, 0]
    annotators = tmp_path / "annotators.csv"
    call_command(
        "export_campaign", "--campaign", campaign.slug, "--format", "annotators", str(annotators)
    )
    assert pd.read_csv(annotators).loc[0, "submitted"] == 1


def test_campaign_list(researcher_client):
    campaign = make_campaign()
    html = researcher_client.get(reverse("campaign-list")).content.decode()
    assert campaign.name in html and detail(campaign) in html


def test_a_prolific_campaign_page_gives_the_study_link(researcher_client):
    campaign = make_campaign(prolific_enabled=True, prolific_completion_code="CODE42")
    html = researcher_client.get(detail(campaign)).content.decode()
    link = reverse("annotation-prolific", args=[campaign.slug])
    assert f"{link}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&amp;STUDY_ID={{{{%STUDY_ID%}}}}" in html
    assert "CODE42" in html
