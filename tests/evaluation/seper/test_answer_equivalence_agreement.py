"""Human answer-equivalence labels (SePer page and campaign task 3) vs the SePer entailment
kernel's stored decisions, through the agreement report and ``manage.py agreement``."""

import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from sklearn.metrics import cohen_kappa_score

from annotation.models import Assignment
from annotation.task_types.names import ANSWER_EQUIVALENCE
from crux_app.models import GeneratedOutput, SubQuestion
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import AnswerEquivalenceDecision, SeperScore
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db

# Generated answers and what WordNLI's kernel makes of them against the gold "Jane Austen".
ANSWERS = {
    "Jane Austen": True,  # entails both ways
    "Charles Dickens": False,  # no shared word: contradiction
    "Austen": True,  # the gold entails it, it is neutral to the gold: a loose match
    "Jane Eyre": False,  # neutral both ways
    "Bath": False,
}
ANNOTATOR_LABELS = {
    "ann-1": [True, False, True, True, False],
    "ann-2": [True, True, False, False, False],
}
KERNEL = "SePer kernel (test/word-nli)"


@pytest.fixture
def labelled(researcher_client, researcher):
    data = seper_collection()
    SubQuestion.objects.create(topic=data.topic, position=0, text=data.topic.request)
    outputs = [
        GeneratedOutput.objects.create(
            collection=data.collection,
            topic=data.topic,
            external_id=f"rag/{i}",
            system="rag",
            kind=GeneratedOutput.Kind.ANSWER,
            text=text,
        )
        for i, text in enumerate(ANSWERS)
    ]
    models = CountingModels()
    job = run_seper_job(seper_job(data), models.models())
    assert job.state == "succeeded", job.errors
    annotators = [make_annotator(name) for name in ANNOTATOR_LABELS]
    campaign = make_campaign(
        ANSWER_EQUIVALENCE, collection=data.collection, annotators=annotators, name="eq"
    )
    items = {item.output_id: item for item in campaign.items.filter(is_attention_check=False)}
    now = timezone.now()
    for user in annotators:
        for output, label in zip(outputs, ANNOTATOR_LABELS[user.username], strict=True):
            Assignment.objects.create(
                campaign=campaign,
                item=items[output.pk],
                annotator=user,
                state=Assignment.State.SUBMITTED,
                reserved_at=now,
                reserved_until=now,
                submitted_at=now,
                answer={"equivalent": label},
                time_spent_ms=1500,
            )
    # The researcher labels two sampled responses of the baseline on the SePer page.
    baseline = SeperScore.objects.get(topic=data.topic, context_kind="none")
    texts = [r["text"] for r in baseline.detail["responses"]]
    url = reverse("seper-topic-response-equivalence", args=[data.collection.pk, data.topic.pk])
    for text, answer in (("Jane Austen", "yes"), ("Charles Dickens", "yes")):
        response = researcher_client.post(
            url, {"score": baseline.pk, "response": texts.index(text), "answer": answer}
        )
        assert response.status_code == 200
    return data, outputs, researcher


def test_the_job_stores_the_kernels_decision_on_each_generated_answer(labelled):
    data, outputs, _ = labelled
    decisions = AnswerEquivalenceDecision.objects.filter(source="output")
    assert {d.output_id: d.equivalent for d in decisions} == {
        o.pk: ANSWERS[o.text] for o in outputs
    }
    assert all(d.nli == "test/word-nli" for d in decisions)
    # A re-run stores nothing new and needs no model.
    models = CountingModels()
    run_seper_job(seper_job(data), models.models())
    assert models.loads == 0 and decisions.count() == len(ANSWERS)


def _pooled_pairs():
    """The pooled human labels and the kernel's label of the same item, by hand."""
    machine = list(ANSWERS.values())
    researcher = {"Jane Austen": True, "Charles Dickens": True}
    human, kernel = [], []
    for labels in ANNOTATOR_LABELS.values():
        human += labels
        kernel += machine
    for text, label in researcher.items():
        human.append(label)
        kernel.append(ANSWERS[text])
    return np.array(human, float), np.array(kernel, float)


def test_the_report_compares_humans_with_the_kernel(labelled):
    data, _, researcher = labelled
    report = build_report(data.collection, AgreementOptions(bootstrap=Bootstrap(0)))
    task = next(t for t in report.tasks if t.key == "answer_equivalence")
    assert task.n_items == len(ANSWERS)
    # Annotators without a judge row are named as the annotation app names their judges.
    assert task.labels == {KERNEL: 5, "user:ann-1": 5, "user:ann-2": 5, researcher.username: 2}
    records = [r for r in report.human_vs_llm if r.task == "answer_equivalence"]
    pooled = next(
        r
        for r in records
        if r.statistic == "cohen_kappa" and r.extra["reference"] == "humans (pooled)"
    )
    human, kernel = _pooled_pairs()
    assert pooled.value == pytest.approx(cohen_kappa_score(human, kernel))
    assert pooled.stat.n_pairs == len(human)
    one = next(
        r for r in records if r.statistic == "cohen_kappa" and r.extra["reference"] == "user:ann-1"
    )
    expected = cohen_kappa_score(ANNOTATOR_LABELS["ann-1"], list(ANSWERS.values()))
    assert one.value == pytest.approx(expected)
    inter = next(
        r
        for r in report.inter_annotator
        if r.task == "answer_equivalence"
        and r.statistic == "cohen_kappa"
        and set(r.judges) == {"user:ann-1", "user:ann-2"}
    )
    assert inter.value == pytest.approx(
        cohen_kappa_score(ANNOTATOR_LABELS["ann-1"], ANNOTATOR_LABELS["ann-2"])
    )
    # Disagreements name the judged text.
    texts = {d.item_text for d in report.disagreements if d.task == "answer_equivalence"}
    assert {"Jane Eyre", "Charles Dickens"} <= texts


def test_the_command_prints_the_same_figures_and_a_campaign_restricts_to_its_labels(labelled):
    data, _, researcher = labelled
    out = io.StringIO()
    args = ["--collection", data.collection.name, "--format", "json", "--resamples", "20"]
    call_command("agreement", *args, stdout=out, stderr=io.StringIO())
    records = json.loads(out.getvalue())["human_vs_llm"]
    mine = [r for r in records if r["task"] == "answer_equivalence"]
    pooled = next(
        r for r in mine if r["statistic"] == "cohen_kappa" and r["reference"] == "humans (pooled)"
    )
    human, kernel = _pooled_pairs()
    assert pooled["value"] == pytest.approx(cohen_kappa_score(human, kernel))
    assert pooled["judge"] == KERNEL and pooled["ci_low"] <= pooled["value"] <= pooled["ci_high"]
    agreement = next(
        r
        for r in mine
        if r["statistic"] == "percent_agreement" and r["reference"] == "humans (pooled)"
    )
    assert agreement["value"] == pytest.approx(float(np.mean(human == kernel)))
    # The campaign alone: the researcher's page labels are not part of it.
    out = io.StringIO()
    call_command("agreement", *args, "--campaign", "eq", stdout=out, stderr=io.StringIO())
    tasks = {t["key"]: t for t in json.loads(out.getvalue())["meta"]["tasks"]}
    assert researcher.username not in tasks["answer_equivalence"]["labels"]
    assert tasks["answer_equivalence"]["labels"]["user:ann-2"] == 5
