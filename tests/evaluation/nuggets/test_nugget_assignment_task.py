"""The ``nugget_assignment`` annotation task nuggets declares: answers, gold and scores; items
made blind from every (nugget, answer) of a collection; a person's labels mirrored as their
human judge's ``NuggetAssignment`` rows (counted by the agreement source, removed by undo),
exported, and read back as gold from a judge."""

import csv
import io
import random
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.campaigns.from_items import create_campaign_from_items
from annotation.campaigns.setup import SelectionOptions, mark_gold_from_judge
from annotation.exports.exports import CampaignExportError, write_csv, write_platform_labels
from annotation.models import Campaign
from annotation.queue import queue
from annotation.queue.selection import SelectionError, select_keys
from annotation.task_types.answers import (
    AnswerError,
    agreement_score,
    parse_answer,
    parse_gold_value,
)
from annotation.task_types.attention_checks import build_attention_checks
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from annotation.workspace.submission import submit
from annotation.workspace.undo import undo
from crux_app.models import Collection, Judge
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.nuggets.assignment_task import TASK_KEY, attention_check
from evaluation.nuggets.models import Nugget, NuggetAssignment
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

SUPPORT, PARTIAL, NOT = "support", "partial_support", "not_support"


def answer(label: str) -> dict:
    return {"assignment": label}


@pytest.mark.parametrize(
    ("typed", "label"),
    [("1", SUPPORT), ("2", PARTIAL), ("3", NOT), (" Support ", SUPPORT), ("not_support", NOT)],
)
def test_a_key_or_a_label_is_an_answer(typed, label):
    assert parse_answer(TASK_KEY, {"assignment": typed}, {}) == answer(label)


@pytest.mark.parametrize("typed", ["", "4", "0", "yes", "supports", None])
def test_anything_else_is_refused_naming_the_field(typed):
    with pytest.raises(AnswerError) as caught:
        parse_answer(TASK_KEY, {"assignment": typed} if typed is not None else {}, {})
    assert caught.value.field == "assignment"
    assert "1 (support)" in caught.value.message


@pytest.mark.parametrize(
    ("cell", "label"),
    [
        ("partial", PARTIAL),
        ("Partial Support", PARTIAL),
        ("partial_support", PARTIAL),
        ("not  support", NOT),
        ("NOT-SUPPORT", NOT),
        ("3", NOT),
        ("support", SUPPORT),
    ],
)
def test_gold_cells_read_keys_names_and_words(cell, label):
    assert parse_gold_value(TASK_KEY, cell, {}) == answer(label)


def test_a_bad_gold_cell_names_the_gold_field():
    with pytest.raises(AnswerError) as caught:
        parse_gold_value(TASK_KEY, "maybe", {})
    assert caught.value.field == "gold"


@pytest.mark.parametrize(
    ("given", "gold", "score"),
    [
        (SUPPORT, SUPPORT, 1.0),
        (PARTIAL, PARTIAL, 1.0),
        (SUPPORT, PARTIAL, 0.5),
        (PARTIAL, NOT, 0.5),
        (NOT, PARTIAL, 0.5),
        (SUPPORT, NOT, 0.0),
        (NOT, SUPPORT, 0.0),
    ],
)
def test_the_score_is_the_scorers_credit_distance(given, gold, score):
    # The campaign's rating tolerance does not apply: 5 points change nothing.
    for tolerance in (0, 1, 5):
        assert agreement_score(TASK_KEY, answer(given), answer(gold), tolerance) == score


def test_an_unknown_stored_label_scores_zero_rather_than_failing():
    assert agreement_score(TASK_KEY, {"assignment": "odd"}, answer(SUPPORT)) == 0.0
    assert agreement_score(TASK_KEY, {}, answer(SUPPORT)) == 0.0


def test_attention_checks_say_their_key_and_expect_its_label():
    checks = build_attention_checks(TASK_KEY, 6, seed=4)
    assert checks == build_attention_checks(TASK_KEY, 6, seed=4)
    for check in checks:
        key = {SUPPORT: "1", PARTIAL: "2", NOT: "3"}[check.expected["assignment"]]
        assert f"please answer {key}" in check.payload["sentences"][1]
        assert parse_answer(TASK_KEY, {"assignment": key}, check.payload) == check.expected
    assert attention_check(random.Random(1), 7).payload["topic"] == "attention-7"


def test_the_entry_declares_its_keys_for_the_workspace():
    entry = TASK_TYPE_REGISTRY[TASK_KEY]
    assert dict(entry.keys.values) == {"1": SUPPORT, "2": PARTIAL, "3": NOT}
    assert entry.keys.answer_field == "assignment" and not entry.keys.rows


@pytest.mark.django_db
def test_every_nugget_answer_pair_is_an_item_and_none_shows_a_judges_label(tmp_path):
    load_all(tmp_path)  # 2 answers x 3 nuggets on t1, 1 x 1 on t2; LLM "gpt" labelled all
    collection = Collection.objects.get(name=NAME)
    keys = select_keys(collection, TASK_KEY, "every")
    assert len(keys) == 7 and len(set(keys)) == 7
    campaign = make_campaign(TASK_KEY, collection=collection, overlap=1)
    items = list(campaign.items.order_by("pk"))
    assert len(items) == 7
    first = items[0].payload
    assert first["topic"] == "t1" and first["importance"] == "vital"
    assert first["sentences"][0] == "The moon's gravity pulls on the oceans."
    nugget = Nugget.objects.get(pk=first["nugget_id"])
    assert first["nugget"] == nugget.text and items[0].output_id is not None
    labels = set(NuggetAssignment.objects.values_list("assignment", flat=True))
    for item in items:
        assert not labels & set(map(str, item.payload.values())), item.payload
        assert "assignment" not in item.payload


@pytest.mark.django_db
def test_a_collection_without_nuggets_says_what_the_task_needs():
    collection = Collection.objects.create(name="bare")
    with pytest.raises(SelectionError) as caught:
        select_keys(collection, TASK_KEY, "every")
    assert "nuggets and answers split into sentences" in str(caught.value)


def _answer_all(campaign: Campaign, user, labels: dict[tuple[str, int, str], str]) -> None:
    """Submit every item the queue gives ``user``: the label for (topic, nugget position,
    answer), else not support."""
    while (assignment := queue.next_item(campaign, user).assignment) is not None:
        p = assignment.item.payload
        label = labels.get((p["topic"], p.get("nugget_position"), p["output_id"]), NOT)
        submit(assignment, parse_answer(TASK_KEY, {"assignment": label}, p))


@pytest.mark.django_db
def test_labels_are_mirrored_counted_exported_and_undone(tmp_path):
    load_all(tmp_path)
    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())
    collection = Collection.objects.get(name=NAME)
    anna = make_annotator("anna")
    campaign = make_campaign(TASK_KEY, collection=collection, annotators=[anna], overlap=1)
    gpt = {
        (n.topic.external_id, n.position, a.output.external_id): a.assignment
        for a in NuggetAssignment.objects.select_related("nugget__topic", "output")
        for n in [a.nugget]
    }
    mine = dict(gpt)
    mine[("t1", 0, "runB:t1")] = SUPPORT  # gpt: not support
    _answer_all(campaign, anna, mine)

    judge = Judge.objects.get(user=anna)
    assert judge.name == "user:anna" and judge.kind == Judge.Kind.HUMAN
    stored = NuggetAssignment.objects.filter(judge=judge)
    assert stored.count() == 7
    report = build_report(collection, AgreementOptions())
    task = next(t for t in report.tasks if t.key == "nugget_assignment")
    assert task.labels == {"gpt": 7, "user:anna": 7}
    agreement = next(
        r
        for r in report.human_vs_llm
        if r.task == "nugget_assignment" and r.statistic == "percent_agreement"
    )
    assert agreement.value == pytest.approx(6 / 7)

    out = io.StringIO()
    assert write_csv(campaign, out) == 7
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert {r["assignment"] for r in rows} <= {SUPPORT, PARTIAL, NOT}
    assert all(r["nugget"] and r["importance"] and r["nugget_id"] for r in rows)
    with pytest.raises(CampaignExportError):
        write_platform_labels(campaign, anna, io.StringIO())

    latest = campaign.assignments.submitted().latest_first().first()
    pair = (latest.item.payload["nugget_id"], latest.item.output_id)
    undo(latest)
    assert stored.count() == 6
    assert not stored.filter(nugget_id=pair[0], output_id=pair[1]).exists()


@pytest.mark.django_db
def test_a_second_campaigns_label_of_the_same_pair_comes_back_after_an_undo(tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    anna = make_annotator("anna")
    options = SelectionOptions(mode="every")
    first = make_campaign(TASK_KEY, collection=collection, annotators=[anna], overlap=1)
    _answer_all(first, anna, {})  # all not support
    second = make_campaign(
        TASK_KEY, collection=collection, options=options, annotators=[anna], name="again"
    )
    assignment = queue.next_item(second, anna).assignment
    submit(assignment, answer(SUPPORT))
    row = NuggetAssignment.objects.filter(
        judge__user=anna,
        nugget_id=assignment.item.payload["nugget_id"],
        output_id=assignment.item.output_id,
    )
    assert list(row.values_list("assignment", flat=True)) == [SUPPORT]
    undo(assignment)
    # The first campaign's label of the pair again.
    assert list(row.values_list("assignment", flat=True)) == [NOT]


@pytest.mark.django_db
def test_gold_items_come_from_the_llm_judges_assignments(tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    campaign = make_campaign(TASK_KEY, collection=collection)
    items = list(campaign.items.regular())
    gpt = Judge.objects.get(name="gpt")
    assert mark_gold_from_judge(campaign, items, gpt, 3, seed=1) == 3
    for item in campaign.items.filter(is_gold=True):
        wanted = NuggetAssignment.objects.get(
            judge=gpt, nugget_id=item.payload["nugget_id"], output_id=item.output_id
        )
        assert item.gold_answer == answer(wanted.assignment)


@pytest.mark.django_db
def test_a_campaign_of_chosen_pairs_checks_them_against_the_collection(tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    keys = select_keys(collection, TASK_KEY, "every")
    campaign = Campaign(name="chosen", collection=collection, task_type=TASK_KEY, overlap=1)
    made = create_campaign_from_items(campaign, [list(keys[2]), keys[0]], {"source": "test"})
    assert [(i.payload["nugget_id"], i.output_id) for i in made.items.order_by("pk")] == [
        keys[2],
        keys[0],
    ]
    other = Campaign(name="wrong", collection=collection, task_type=TASK_KEY, overlap=1)
    nugget, output = keys[-1]  # t2's nugget; pair it with a t1 answer
    with pytest.raises(SelectionError) as caught:
        create_campaign_from_items(other, [(nugget, keys[0][1])], {})
    assert caught.value.field == "items" and "not an item of this task" in str(caught.value)
    assert not Campaign.objects.filter(name="wrong").exists()
