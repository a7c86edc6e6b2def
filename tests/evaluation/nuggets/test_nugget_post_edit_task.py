"""The nugget post-editing task type (issue 27, section 5) beside its answers: gold lists and
their score, attention checks, the items a campaign gets, a submission through the workspace
and the label export in the nuggetizer's create format."""

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.campaigns.setup import SelectionOptions
from annotation.exports.exports import write_csv
from annotation.models import Assignment, Campaign
from annotation.queue import queue
from annotation.task_types.answers import (
    AnswerError,
    agreement_score,
    parse_answer,
    parse_gold_value,
)
from annotation.task_types.attention_checks import build_attention_checks
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from annotation.workspace.submission import submit
from crux_app.models import Collection, Passage, PassageQrel, Topic
from evaluation.nuggets.method.list_edits import list_agreement, text_f1
from evaluation.nuggets.post_edit_task import KEY
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.nuggets.nugget_files import NUGGETS
from tests.evaluation.nuggets.test_nugget_imports import load_all
from tests.evaluation.nuggets.test_nugget_post_editing import PAYLOAD, fields, n, op

pytestmark = pytest.mark.django_db

# ---- gold, score, attention checks ---------------------------------------------------------


def test_gold_lists_and_their_score_by_nugget_text_overlap():
    gold = parse_gold_value(
        KEY, json.dumps([n("The moon pulls the oceans"), n("The sun too", "okay")]), PAYLOAD
    )
    assert gold == {
        "nuggets": [n("The moon pulls the oceans"), n("The sun too", "okay")],
        "history": [],
    }
    assert parse_gold_value(KEY, json.dumps({"nuggets": gold["nuggets"]}), PAYLOAD) == gold
    assert agreement_score(KEY, gold, gold) == 1.0
    # Order, case and punctuation do not count; importance counts half; a missing nugget 0.
    swapped = {"nuggets": [n("the sun, too", "okay"), n("The moon pulls the oceans.")]}
    assert agreement_score(KEY, swapped, gold) == 1.0
    relabelled = {"nuggets": [n("The moon pulls the oceans"), n("The sun too", "vital")]}
    assert agreement_score(KEY, relabelled, gold) == pytest.approx(0.75)
    one = {"nuggets": [n("The moon pulls the oceans")]}
    assert agreement_score(KEY, one, gold) == pytest.approx(0.5)
    assert text_f1("the moon pulls", "the moon pushes") == pytest.approx(2 / 3)
    assert list_agreement([], []) == 1.0 and list_agreement([("a", "vital")], []) == 0.0
    for bad, field in [
        ("", "edits"),
        ("[]", "nuggets"),
        ('{"list": []}', "edits"),
        ("[1]", "nuggets[0]"),
    ]:
        with pytest.raises(AnswerError) as caught:
            parse_gold_value(KEY, bad, PAYLOAD)
        assert caught.value.field == field


def _follow(check) -> dict:
    """The answer an annotator who reads the check gives: do what the odd nugget says."""
    shown = [n(x["text"], x["importance"]) for x in check.payload["nuggets"]]
    history = []
    for i, nugget in enumerate(shown):
        if nugget["text"].endswith("delete this nugget."):
            history = [op("delete", [i], [nugget], [])]
        elif nugget["text"].endswith("mark this nugget okay."):
            history = [op("importance", [i], [nugget], [n(nugget["text"], "okay")])]
    final = json.loads(json.dumps(shown))
    return parse_answer(
        KEY,
        {"edits": json.dumps({"nuggets": _apply(final, history), "history": history})},
        check.payload,
    )


def _apply(nuggets: list, history: list) -> list:
    for h in history:
        nuggets[h["positions"][0] : h["positions"][0] + 1] = h["after"]
    return nuggets


def test_attention_checks_pass_when_followed_and_fail_when_not():
    checks = build_attention_checks(KEY, 6, seed=3)
    assert {len(c.payload["nuggets"]) for c in checks} == {3}
    assert len({json.dumps(c.payload) for c in checks}) == 6
    for check in checks:
        assert agreement_score(KEY, _follow(check), check.expected) == 1.0
        unchanged = parse_answer(
            KEY,
            fields([n(x["text"], x["importance"]) for x in check.payload["nuggets"]], []),
            check.payload,
        )
        assert agreement_score(KEY, unchanged, check.expected) < 1.0


# ---- items, submission through the workspace, exports ----------------------------------------


def _collection(tmp_path) -> Collection:
    load_all(tmp_path)
    collection = Collection.objects.get(name="tides")
    t1 = collection.topics.get(external_id="t1")
    passage = Passage.objects.create(
        collection=collection, external_id="p1", text="The moon's pull.", has_text=True
    )
    PassageQrel.objects.create(topic=t1, passage=passage, grade=2)
    Topic.objects.create(collection=collection, external_id="t3", request="no nuggets here")
    return collection


def test_items_are_the_topics_with_nuggets_with_their_query_and_top_passages(tmp_path):
    collection = _collection(tmp_path)
    campaign = make_campaign(
        KEY, collection=collection, options=SelectionOptions(mode="every", attention_count=1)
    )
    items = {i.payload["topic"]: i for i in campaign.items.filter(is_attention_check=False)}
    assert set(items) == {"t1", "t2"}
    t1 = items["t1"].payload
    assert t1["query"] == "why do tides happen"
    assert [(x["position"], x["text"], x["importance"]) for x in t1["nuggets"]] == [
        (i, x["text"], x["importance"]) for i, x in enumerate(NUGGETS[0]["nuggets"])
    ]
    assert t1["passages"] == [{"docid": "p1", "text": "The moon's pull."}]
    assert items["t1"].topic.external_id == "t1"
    assert items["t1"].short_label == "t1 · 3 nuggets"
    assert campaign.items.filter(is_attention_check=True).count() == 1


def test_the_workspace_submits_a_post_edit_and_refuses_garbage_with_a_400(tmp_path):
    collection = _collection(tmp_path)
    anna = make_annotator("anna")
    campaign = make_campaign(KEY, collection=collection, annotators=[anna], overlap=1)
    client = Client()
    client.force_login(anna)
    page = client.get(reverse("annotation-workspace", args=[campaign.slug]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="edits"' in html and "js/nugget_editor.js" in html
    assert "why do tides happen" in html and "The moon&#x27;s pull." in html
    assignment = Assignment.objects.get(annotator=anna, state="reserved")
    url = reverse("annotation-submit", args=[campaign.slug, assignment.pk])
    bad = client.post(url, {"edits": json.dumps({"nuggets": [n("x", "high")], "history": []})})
    assert bad.status_code == 400
    assert (
        bad.content.decode()
        == "nuggets[0].importance: importance must be vital or okay, got 'high'"
    )
    shown = [n(x["text"], x["importance"]) for x in assignment.item.payload["nuggets"]]
    history = [op("delete", [0], [shown[0]], [], 1200)]
    good = client.post(
        url, {**fields(shown[1:], history), "list_ready": "1", "time_spent_ms": "1500"}
    )
    assert good.status_code == 302
    assignment.refresh_from_db()
    assert assignment.state == "submitted"
    assert assignment.answer == {
        "nuggets": shown[1:],
        "history": [{**history[0], "before": [shown[0]]}],
    }


def test_the_label_export_holds_the_edited_list_in_the_nuggetizer_create_format(tmp_path):
    collection = _collection(tmp_path)
    anna = make_annotator("anna")
    campaign = make_campaign(KEY, collection=collection, annotators=[anna], overlap=1)
    assignment = queue.next_item(campaign, anna).assignment
    shown = [n(x["text"], x["importance"]) for x in assignment.item.payload["nuggets"]]
    answer = parse_answer(
        KEY,
        fields(
            [*shown, n("Added", "okay")], [op("add", [len(shown)], [], [n("Added", "okay")], 5)]
        ),
        assignment.item.payload,
    )
    submit(assignment, answer, 1000)
    out = io.StringIO()
    write_csv(campaign, out)
    (row,) = list(csv.DictReader(io.StringIO(out.getvalue())))
    line = json.loads(row["edited_nuggets"])
    assert line == {
        "qid": assignment.item.payload["topic"],
        "query": assignment.item.payload["query"],
        "nuggets": [*shown, n("Added", "okay")],
    }
    assert (row["n_nuggets"], row["n_operations"]) == (str(len(shown) + 1), "1")
    assert json.loads(row["edit_history"])[0]["op"] == "add"
    assert TASK_TYPE_REGISTRY[KEY].export_columns[0] == "edited_nuggets"


def test_a_researcher_makes_a_post_editing_campaign_and_reads_its_answers(
    researcher_client, tmp_path
):
    collection = _collection(tmp_path)
    anna = make_annotator("anna")
    form = {
        "name": "Post-edit tides",
        "collection": collection.pk,
        "task_type": KEY,
        "selection_mode": "every",
        "seed": 0,
        "tau": 3,
        "overlap": 1,
        "reservation_seconds": 600,
        "gold_count": 0,
        "attention_count": 1,
        "control_interval": 5,
        "gold_min_accuracy": 0.7,
        "gold_tolerance": 1,
        "attention_min_pass_rate": 1.0,
        "qc_min_answers": 1,
        "qc_action": "warn",
        "annotators": [anna.pk],
    }
    response = researcher_client.post(reverse("campaign-create"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(name="Post-edit tides")
    assert campaign.items.filter(is_attention_check=False).count() == 2
    assignment = queue.next_item(campaign, anna).assignment
    payload = assignment.item.payload
    shown = [n(x["text"], x["importance"]) for x in payload["nuggets"]]
    submit(assignment, parse_answer(KEY, fields(shown, []), payload), 900)
    page = researcher_client.get(reverse("campaign-detail", args=[campaign.pk]))
    assert page.status_code == 200
    assert "Nugget post-editing" in page.content.decode()
    no_nuggets = Collection.objects.create(name="empty")
    Topic.objects.create(collection=no_nuggets, external_id="e1", request="nothing")
    refused = researcher_client.post(
        reverse("campaign-create"), {**form, "name": "Empty", "collection": no_nuggets.pk}
    )
    assert refused.status_code == 400
    assert "topics with nuggets" in refused.content.decode()
