"""Annotation task types are registry entries: a type declared by an app (here a test-only
entry, through ``Declaration.annotation_task_types``) is listed, parsed, scored, checked,
selected and exported by the same code as the four built-in ones."""

import csv
import io

import pytest

import annotation
from annotation.campaigns.setup import SelectionOptions
from annotation.exports.exports import write_csv
from annotation.queue import queue
from annotation.queue.selection import select_items
from annotation.task_types.answers import (
    AnswerError,
    agreement_score,
    answer_summary,
    answer_to_draft,
    parse_answer,
    parse_gold_value,
)
from annotation.task_types.attention_checks import build_attention_checks
from annotation.task_types.names import TASK_LABELS, task_label
from annotation.task_types.registry import TASK_TYPE_REGISTRY, task_type_choices
from annotation.workspace.submission import submit
from crux_app.method_config import Declaration, PluginConfig
from crux_app.models import Collection, Topic

from .campaign_data import make_annotator, make_campaign
from .toy_task_type import TOY, TOY_KEY


class _ToyConfig(PluginConfig):
    """A method's app declaring its human task (built by hand: not an installed app)."""

    name = "annotation"  # any importable package
    label = "toy_task_type_test"

    def declare(self) -> Declaration:
        return Declaration(annotation_task_types=(TOY,))


@pytest.fixture
def toy():
    _ToyConfig("annotation", annotation).ready()
    yield TOY
    TASK_TYPE_REGISTRY.unregister(TOY_KEY)


def test_the_builtin_types_are_registered_first_in_their_order():
    # The methods' declared types (nuggets') come after annotation's own.
    assert list(TASK_TYPE_REGISTRY)[: len(TASK_LABELS)] == list(TASK_LABELS)
    assert task_type_choices()[: len(TASK_LABELS)] == list(TASK_LABELS.items())


def test_a_declared_task_type_is_listed_and_labelled(toy):
    assert (TOY_KEY, "Fluency (good / bad)") in task_type_choices()
    assert task_label(TOY_KEY) == "Fluency (good / bad)"
    assert task_label("never_declared") == "never_declared"


def test_a_declared_task_type_is_parsed_scored_and_summarised(toy):
    answer = parse_answer(TOY_KEY, {"fluent": " Good "}, {})
    assert answer == {"fluent": True}
    assert answer_to_draft(TOY_KEY, answer) == {"fluent": "good"}
    gold = parse_gold_value(TOY_KEY, "bad", {})
    assert agreement_score(TOY_KEY, answer, gold) == 0.0
    assert agreement_score(TOY_KEY, answer, answer) == 1.0
    assert answer_summary(TOY_KEY, gold) == "bad"
    with pytest.raises(AnswerError) as caught:
        parse_answer(TOY_KEY, {"fluent": "maybe"}, {})
    assert caught.value.field == "fluent"


def test_an_undeclared_task_type_is_refused_naming_the_field():
    with pytest.raises(AnswerError) as caught:
        parse_answer(TOY_KEY, {"fluent": "good"}, {})
    assert caught.value.field == "task_type"
    assert answer_summary(TOY_KEY, {"fluent": True}) == ""
    assert answer_to_draft(TOY_KEY, {"fluent": True}) == {}


def test_a_declared_task_types_attention_checks_come_from_its_entry(toy):
    checks = build_attention_checks(TOY_KEY, 4, seed=3)
    assert checks == build_attention_checks(TOY_KEY, 4, seed=3)
    for check in checks:
        word = "good" if check.expected["fluent"] else "bad"
        assert f"Please answer {word}." == check.payload["text"]
        assert agreement_score(TOY_KEY, parse_answer(TOY_KEY, {"fluent": word}, {}), check.expected)


@pytest.mark.django_db
def test_a_declared_task_type_selects_its_items(toy):
    collection = Collection.objects.create(name="toy")
    for n, request in enumerate(["Why is the sky blue?", "Why is grass green?"]):
        Topic.objects.create(collection=collection, external_id=f"t{n}", request=request)
    specs = select_items(collection, TOY_KEY, "every")
    assert [(s.kind, s.payload["text"]) for s in specs] == [
        (TOY_KEY, "Why is the sky blue?"),
        (TOY_KEY, "Why is grass green?"),
    ]
    sampled = select_items(collection, TOY_KEY, "sample", sample_size=1, seed=0)
    assert len(sampled) == 1 and sampled[0].kind == TOY_KEY


def test_the_export_splits_answers_through_the_entry():
    from annotation.exports.exports import _answer_columns

    coverage = {"answers": [{"position": 0, "answerable": 1, "span": "x"}]}
    payload = {"questions": [{"position": 0, "text": "Who?"}]}
    [row] = _answer_columns("report_coverage", coverage, payload)
    assert row["subquestion"] == "Who?" and row["answerable"] == 1 and row["rationale"] == "x"
    assert _answer_columns("passage_rating", {"rating": 3, "extra": 1}, {}) == [{"rating": 3}]


@pytest.mark.django_db
def test_a_campaign_of_a_declared_task_type_runs_from_selection_to_export(toy):
    collection = Collection.objects.create(name="toy")
    for n in range(2):
        Topic.objects.create(collection=collection, external_id=f"t{n}", request=f"Why {n}?")
    anna = make_annotator("anna")
    campaign = make_campaign(
        TOY_KEY,
        collection=collection,
        options=SelectionOptions(mode="every", attention_count=1, seed=2),
        annotators=[anna],
        overlap=1,
        control_interval=1,
    )
    assert campaign.items.filter(kind=TOY_KEY).count() == 2
    assert campaign.items.filter(is_attention_check=True).count() == 1
    while (assignment := queue.next_item(campaign, anna).assignment) is not None:
        submit(assignment, parse_answer(TOY_KEY, {"fluent": "good"}, assignment.item.payload))
    out = io.StringIO()
    assert write_csv(campaign, out) == 3
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [row["fluent"] for row in rows] == ["True", "True", "True"]
    assert {row["topic"] for row in rows if row["is_attention_check"] == "False"} == {"t0", "t1"}
    assert {row["task_type"] for row in rows} == {TOY_KEY}
    [check] = [row for row in rows if row["is_attention_check"] == "True"]
    expected = campaign.items.get(is_attention_check=True).expected_answer["fluent"]
    assert check["attention_passed"] == str(expected)
