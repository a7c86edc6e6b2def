"""Nugget assignments in the review queue (nuggets' ``ReviewLabelSource``): a person's campaign
labels, an imported person's and the LLM judge's, compared among people and between people and
the LLM; a review campaign over them shows the nugget and the answer, blind, and takes a
decision in the task's labels, stored as the adjudicated judge's assignment."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import ReviewDecision
from annotation.quality.annotators import quality_rows
from annotation.queue import queue
from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import DecisionError, decide, parse_label
from annotation.review.display import label_text, other_label_hint
from annotation.review.selection import QueueChoice
from annotation.task_types.answers import parse_answer
from annotation.workspace.submission import submit
from crux_app.models import Collection
from evaluation.nuggets.assignment_task import TASK_KEY
from evaluation.nuggets.models import NuggetAssignment
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.nuggets.nugget_files import ASSIGNMENTS, write_lines
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db

RUN_A_MOON = "t1/n0/runA:t1"  # gpt and amy: support; anna: not support
RUN_B_SUN = "t1/n1/runB:t1"  # gpt: partial support; amy: support; anna: as gpt


@pytest.fixture
def collection(tmp_path) -> Collection:
    load_all(tmp_path)  # the LLM judge "gpt"
    amy = json.loads(json.dumps(ASSIGNMENTS))
    amy[2]["nuggets"][1]["assignment"] = "support"
    call_command(
        "import_nugget_assignments", "--collection", NAME, "--judge", "amy", "--kind", "human",
        write_lines(tmp_path / "amy.jsonl", amy), stdout=StringIO(),
    )  # fmt: skip
    collection = Collection.objects.get(name=NAME)
    gpt = {(a["qid"], a["run_id"]): [n["assignment"] for n in a["nuggets"]] for a in ASSIGNMENTS}
    anna = make_annotator("anna")
    campaign = make_campaign(TASK_KEY, collection=collection, annotators=[anna], overlap=1)
    while (assignment := queue.next_item(campaign, anna).assignment) is not None:
        p = assignment.item.payload
        run = p["output_id"].split(":")[0]
        label = gpt[(p["topic"], run)][p["nugget_position"]]
        if (p["topic"], run, p["nugget_position"]) == ("t1", "runA", 0):
            label = "not_support"
        submit(assignment, parse_answer(TASK_KEY, {"assignment": label}, p))
    return collection


def review_queue(*args: str) -> dict:
    out = StringIO()
    call_command(
        "review_queue", "--collection", NAME, "--task", TASK_KEY, *args, stdout=out
    )  # fmt: skip
    return json.loads(out.getvalue())


def test_the_queue_finds_the_people_who_disagree(collection):
    found = review_queue("--kind", "annotators")
    assert found["n_items"] == 2
    by_key = {i["key"]: i["labels"] for i in found["items"]}
    assert by_key == {
        RUN_A_MOON: {"amy": "support", "user:anna": "not_support"},
        RUN_B_SUN: {"amy": "support", "user:anna": "partial_support"},
    }


def test_the_queue_finds_people_against_the_llm_judge(collection):
    found = review_queue("--kind", "annotator_machine")
    by_key = {i["key"]: i["labels"] for i in found["items"]}
    assert set(by_key) == {RUN_A_MOON, RUN_B_SUN}
    assert by_key[RUN_A_MOON]["gpt"] == "support"
    assert by_key[RUN_B_SUN]["gpt"] == "partial_support"
    # Naming two judges compares those two only: anna agrees with gpt on RUN_B_SUN.
    pair = review_queue("--judges", "user:anna", "gpt", "--kind", "annotator_machine")
    assert [i["key"] for i in pair["items"]] == [RUN_A_MOON]


def test_an_unknown_judge_is_named_in_the_error(collection):
    with pytest.raises(Exception) as caught:
        review_queue("--judges", "nobody")
    assert "nobody" in str(caught.value) and "user:anna" in str(caught.value)


def test_a_review_campaign_shows_the_nugget_blind_and_takes_a_label(collection, client, researcher):
    choice = QueueChoice(task_type=TASK_KEY, kind="annotator_machine")
    campaign = create_review_campaign(collection, "Nugget review", choice)
    first = campaign.items.order_by("position").first()
    assert first.key == RUN_A_MOON
    assert first.payload["details"] == [["Nugget (vital)", "The moon's gravity pulls the oceans"]]
    assert first.payload["text"].startswith("The moon's gravity pulls on the oceans.")
    assert first.output_id is not None and first.topic_id is not None

    client.force_login(researcher)
    html = client.get(reverse("review-workspace", args=[campaign.slug])).text
    assert "The moon&#x27;s gravity pulls the oceans" in html
    assert "Nugget (vital)" in html and "why do tides happen" in html
    assert "not support" in html and "gpt" not in html and "user:anna" not in html

    url = reverse("review-decide", args=[campaign.slug, first.pk])
    assert client.post(url, {"option": "", "other": "maybe"}).status_code == 400
    response = client.post(url, {"option": "", "other": "Partial_Support", "note": "hedged"})
    assert response.status_code == 302
    assert ReviewDecision.objects.get(item=first).label == "partial_support"
    adjudicated = NuggetAssignment.objects.get(judge=campaign.judge)
    assert (adjudicated.nugget_id, adjudicated.output_id) == (
        first.payload["nugget_id"],
        first.output_id,
    )
    assert adjudicated.assignment == "partial_support" and adjudicated.raw_output == "hedged"
    # The reference is no candidate of a later queue unless named.
    assert review_queue("--kind", "annotator_machine")["n_items"] == 2
    named = review_queue("--judges", campaign.judge.name, "gpt")
    assert [i["key"] for i in named["items"]] == [RUN_A_MOON]


def test_labels_read_in_words_and_typed_labels_are_checked():
    assert label_text(TASK_KEY, "partial_support") == "partial support"
    assert other_label_hint(TASK_KEY) == "support / partial_support / not_support"
    assert parse_label(TASK_KEY, " not_support ") == "not_support"
    with pytest.raises(DecisionError) as caught:
        parse_label(TASK_KEY, "2")
    assert "support / partial_support / not_support" in str(caught.value)


def test_the_annotator_quality_page_compares_nugget_labels(tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(TASK_KEY, collection=collection, annotators=[anna, ben], overlap=2)
    for user in (anna, ben):
        while (assignment := queue.next_item(campaign, user).assignment) is not None:
            p = assignment.item.payload
            odd = user == ben and (p["topic"], p["nugget_position"]) == ("t2", 0)
            submit(assignment, {"assignment": "support" if odd else "not_support"})
    rows = {r.base.username: r for r in quality_rows(campaign)}
    assert rows["anna"].majority.n == 7 and rows["anna"].majority.share == pytest.approx(6 / 7)
    assert rows["ben"].majority.share == pytest.approx(6 / 7)
    review = create_review_campaign(
        collection, "People", QueueChoice(task_type=TASK_KEY, kind="annotators")
    )
    [item] = review.items.all()
    assert item.key == "t2/n0/runA:t2"
    decide(item, anna, "support")
    rows = {r.base.username: r for r in quality_rows(campaign)}
    assert (rows["ben"].reference.n, rows["ben"].reference.share) == (1, 1.0)
    assert (rows["anna"].reference.n, rows["anna"].reference.share) == (1, 0.0)


def test_two_review_campaigns_merge_into_one_adjudicated_judge_of_assignments(
    collection, researcher
):
    from annotation.review.merge import merge_adjudicated

    first = create_review_campaign(
        collection, "Nuggets 1", QueueChoice(task_type=TASK_KEY, kind="annotators")
    )
    second = create_review_campaign(
        collection, "Nuggets 2", QueueChoice(task_type=TASK_KEY, kind="annotator_machine")
    )
    moon_1 = first.items.get(key=RUN_A_MOON)
    moon_2 = second.items.get(key=RUN_A_MOON)
    sun_1 = first.items.get(key=RUN_B_SUN)
    decide(moon_1, researcher, "not_support")
    decide(sun_1, researcher, "support")
    decide(moon_2, researcher, "partial_support", note="later")  # the later decision wins

    result = merge_adjudicated(collection, TASK_KEY, "reference")
    assert (result.n_labels, result.n_conflicts) == (2, 1)
    merged = {
        (a.nugget.position, a.output.system): a.assignment
        for a in NuggetAssignment.objects.filter(judge=result.judge).select_related(
            "nugget", "output"
        )
    }
    assert merged == {(0, "runA"): "partial_support", (1, "runB"): "support"}
    # Merging again rebuilds the same labels, never doubling them.
    again = merge_adjudicated(collection, TASK_KEY, "reference")
    assert again.judge == result.judge
    assert NuggetAssignment.objects.filter(judge=result.judge).count() == 2


def test_the_other_label_box_fits_the_task_labels(collection, client, researcher):
    choice = QueueChoice(task_type=TASK_KEY, kind="annotator_machine")
    campaign = create_review_campaign(collection, "Nugget review", choice)
    client.force_login(researcher)
    html = client.get(reverse("review-workspace", args=[campaign.slug])).text
    hint = other_label_hint(TASK_KEY)
    assert f'size="{min(len(hint), 40)}"' in html and "partial_support" in hint
