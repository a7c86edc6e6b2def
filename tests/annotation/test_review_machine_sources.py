"""Annotators against a method's machine judge in the review queue: SePer's answer-equivalence
decisions (task 3) and LLM-retEval's failure categories (task 4), declared by the methods as
review label sources and read through the command's JSON."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.labels.sources import REVIEW_LABEL_SOURCES, sources_for
from annotation.models.review import ANNOTATOR_MACHINE
from annotation.queue import queue
from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from annotation.task_types.names import ANSWER_EQUIVALENCE, FAILURE_CATEGORY
from annotation.workspace.submission import submit
from crux_app.models import GeneratedOutput
from evaluation.agreement.review_verdict import review_verdict
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.models import RetEvalResult
from evaluation.seper.models import AnswerEquivalenceDecision, equivalence_key
from tests.annotation.campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db


def _queue(*args: str) -> dict:
    out = StringIO()
    call_command("review_queue", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def _label_everything(campaign, answers_by_user) -> list[GeneratedOutput]:
    """Each annotator answers every item with ``answer(output)``; the items' outputs."""
    for user, answer in answers_by_user:
        while (nxt := queue.next_item(campaign, user)).assignment is not None:
            submit(nxt.assignment, answer(nxt.assignment.item.output), 3000)
    items = campaign.items.filter(is_control=False, is_gold=False).select_related("output")
    return sorted((i.output for i in items), key=lambda o: o.pk)


def _key(output: GeneratedOutput) -> str:
    return f"{output.topic.external_id}/{output.external_id}"


def test_the_methods_declare_their_sources():
    assert [s.key for s in sources_for(ANSWER_EQUIVALENCE)] == ["answer_equivalence:seper_kernel"]
    assert [s.key for s in sources_for(FAILURE_CATEGORY)] == ["failure_category:reteval_category"]
    assert len(REVIEW_LABEL_SOURCES) >= 2


def test_annotators_vs_the_seper_kernel_on_answer_equivalence():
    ann, bob = make_annotator("ann"), make_annotator("bob")
    campaign = make_campaign(ANSWER_EQUIVALENCE, annotators=[ann, bob], overlap=2)
    # Both people say "same meaning" of the first topic's RAG answer only.
    same = lambda o: {"equivalent": o.topic.external_id == "q0"}  # noqa: E731
    outputs = _label_everything(campaign, [(ann, same), (bob, same)])
    assert [o.topic.external_id for o in outputs] == ["q0", "q1"]
    # The kernel says yes to every answer with one model; a second model agrees with the people.
    # A decision on a text no item holds is left out.
    for output in outputs:
        key = equivalence_key(output.topic_id, output.text)
        for nli, equivalent in (("deberta", True), ("roberta", output == outputs[0])):
            AnswerEquivalenceDecision.objects.create(
                key=key, topic=output.topic, output=output, response_text=output.text, nli=nli,
                source="output", equivalent=equivalent,
            )  # fmt: skip
    AnswerEquivalenceDecision.objects.create(
        key=equivalence_key(outputs[0].topic_id, "not an item"), topic=outputs[0].topic,
        response_text="not an item", nli="deberta", source="output", equivalent=False,
    )  # fmt: skip
    name = campaign.collection.name

    assert _queue("--collection", name, "--task", ANSWER_EQUIVALENCE) == {
        "n_items": 0,
        "items": [],
    }  # the people agree among themselves
    got = _queue("--collection", name, "--task", ANSWER_EQUIVALENCE, "--kind", ANNOTATOR_MACHINE)
    assert got == {
        "n_items": 1,
        "items": [
            {
                "key": _key(outputs[1]),
                "labels": {
                    "SePer kernel (deberta)": 1,
                    "SePer kernel (roberta)": 0,
                    "user:ann": 0,
                    "user:bob": 0,
                },
            }
        ],
    }
    named = _queue(
        "--collection", name, "--task", ANSWER_EQUIVALENCE,
        "--judges", "user:ann", "SePer kernel (roberta)",
    )  # fmt: skip
    assert named["n_items"] == 0

    review = create_review_campaign(
        campaign.collection,
        "Kernel vs people",
        QueueChoice(task_type=ANSWER_EQUIVALENCE, kind=ANNOTATOR_MACHINE),
    )
    kinds = {j.name: j.kind for j in review_verdict(review).judges}
    assert kinds["SePer kernel (deberta)"] == "nli" and kinds["user:ann"] == "human"


def test_annotators_vs_reteval_categories_on_failure_category():
    ann, bob = make_annotator("ann"), make_annotator("bob")
    campaign = make_campaign(FAILURE_CATEGORY, annotators=[ann, bob], overlap=2)
    outputs = _label_everything(
        campaign, [(ann, lambda o: {"category": "A"}), (bob, lambda o: {"category": "A"})]
    )
    assert outputs
    first, *rest = outputs
    run = first.run
    # LLM-retEval: "C" on the first answer, "A" (agreeing) on the others; an old prompt
    # version's "F" and an uncategorised row are not labels.
    for output in outputs:
        category = "C" if output == first else "A"
        for k, version, cat in (
            (1, PROMPT_VERSION, category),
            (2, "old", "F"),
            (3, PROMPT_VERSION, ""),
        ):
            RetEvalResult.objects.create(
                topic=output.topic, run=output.run or run, k=k, judge="gpt-x",
                prompt_version=version, rag_output=output, recall=1.0, precision=1.0, f1=1.0,
                category=cat,
            )  # fmt: skip

    got = _queue(
        "--collection", campaign.collection.name, "--task", FAILURE_CATEGORY,
        "--kind", ANNOTATOR_MACHINE,
    )  # fmt: skip
    assert got == {
        "n_items": 1,
        "items": [
            {
                "key": _key(first),
                "labels": {"reteval-prelabel:gpt-x": "C", "user:ann": "A", "user:bob": "A"},
            }
        ],
    }
