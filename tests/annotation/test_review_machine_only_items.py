"""Two machine judges disagreeing on an answer no person labelled: the item is built from the
collection's rows, so it is in the queue and its review workspace shows the answer and both
anonymous options (answer equivalence through SePer's kernel, failure category through
LLM-retEval's categories: the methods' declared review label sources)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Assignment
from annotation.models.review import ANNOTATOR_MACHINE, MACHINES
from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from annotation.task_types.names import ANSWER_EQUIVALENCE, FAILURE_CATEGORY
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.models import RetEvalResult
from evaluation.seper.models import AnswerEquivalenceDecision, equivalence_key
from tests.annotation.campaign_data import qa_collection

pytestmark = pytest.mark.django_db


def _queue(collection: str, task: str, kind: str) -> dict:
    out = StringIO()
    call_command(
        "review_queue", "--collection", collection, "--task", task, "--kind", kind,
        "--format", "json", stdout=out,
    )  # fmt: skip
    return json.loads(out.getvalue())


def _workspace(client, campaign) -> str:
    response = client.get(reverse("review-workspace", args=[campaign.slug]))
    assert response.status_code == 200
    return response.text


def test_two_kernels_disagreeing_on_an_unlabelled_answer_make_a_review_item(researcher_client):
    data = qa_collection()
    answer = data.rag_answers[0]
    for nli, equivalent in (("deberta", True), ("roberta", False)):
        AnswerEquivalenceDecision.objects.create(
            key=equivalence_key(answer.topic_id, answer.text), topic=answer.topic, output=answer,
            response_text=answer.text, nli=nli, source="output", equivalent=equivalent,
        )  # fmt: skip
    # The kernels agree on the second answer: no disagreement there.
    other = data.rag_answers[1]
    for nli in ("deberta", "roberta"):
        AnswerEquivalenceDecision.objects.create(
            key=equivalence_key(other.topic_id, other.text), topic=other.topic, output=other,
            response_text=other.text, nli=nli, source="output", equivalent=True,
        )  # fmt: skip
    assert not Assignment.objects.exists()  # nobody labelled anything
    key = f"q0/{answer.external_id}"

    got = _queue(data.collection.name, ANSWER_EQUIVALENCE, MACHINES)
    assert got == {
        "n_items": 1,
        "items": [
            {"key": key, "labels": {"SePer kernel (deberta)": 1, "SePer kernel (roberta)": 0}}
        ],
    }
    # No person labelled it: no person-vs-machine disagreement.
    assert _queue(data.collection.name, ANSWER_EQUIVALENCE, ANNOTATOR_MACHINE)["n_items"] == 0

    review = create_review_campaign(
        data.collection,
        "Kernels disagree",
        QueueChoice(task_type=ANSWER_EQUIVALENCE, kind=MACHINES),
    )
    item = review.items.get()
    assert (item.key, item.output_id, item.topic_id) == (key, answer.pk, answer.topic_id)
    assert item.payload["text"] == answer.text
    assert item.payload["gold_answers"] == ["Author 0", "A. 0"]
    html = _workspace(researcher_client, review)
    assert answer.text in html and "Author 0 · A. 0" in html
    assert "equivalent (1)" in html and "not equivalent (0)" in html
    assert 'data-letter="A"' in html and 'data-letter="B"' in html
    assert "SePer kernel" not in html  # blind: the options name nobody


def test_two_llms_disagreeing_on_an_unlabelled_failure_category(researcher_client):
    data = qa_collection()
    answer = data.rag_answers[1]
    for judge, category in (("gpt-x", "C"), ("llama", "A")):
        RetEvalResult.objects.create(
            topic=answer.topic, run=answer.run, k=2, judge=judge, prompt_version=PROMPT_VERSION,
            rag_output=answer, recall=0.5, precision=0.5, f1=0.5, category=category,
        )  # fmt: skip
    key = f"q1/{answer.external_id}"

    got = _queue(data.collection.name, FAILURE_CATEGORY, MACHINES)
    assert got["items"] == [
        {"key": key, "labels": {"reteval-prelabel:gpt-x": "C", "reteval-prelabel:llama": "A"}}
    ]

    review = create_review_campaign(
        data.collection, "LLMs disagree", QueueChoice(task_type=FAILURE_CATEGORY, kind=MACHINES)
    )
    item = review.items.get()
    # The reference a failure-category campaign item carries: the topic's semi-gold answer.
    assert item.payload["reference"] == data.semi_gold[1].text == "Author 1"
    html = _workspace(researcher_client, review)
    assert answer.text in html and "Reference answer" in html
    assert html.count('class="ws-choice rv-option"') == 2
    assert "A: " in html and "C: " in html
    assert "gpt-x" not in html and "llama" not in html
