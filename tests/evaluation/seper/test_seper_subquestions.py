"""Long-form topics: SePer per sub-question against its reference answers (the supporting
spans people highlighted, and stored reference answers), stored and shown on the page, with
per-response labels keyed by the sub-question."""

import pytest
from django.urls import reverse

from crux_app.models import Job, Judge, Judgment
from evaluation.seper.job import KIND, SeperModels, run_seper_job
from evaluation.seper.models import (
    AnswerEquivalenceDecision,
    AnswerEquivalenceLabel,
    SeperScore,
    equivalence_key,
)
from evaluation.seper.units import oracle_texts, subquestion_references, units_for_topics
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_output,
    make_passages,
    make_run,
    make_topic,
)
from tests.evaluation.seper.seper_doubles import ScriptedGenerator, WordNLI

pytestmark = pytest.mark.django_db

SCRIPT = {
    "aspect 0": [("Jane Austen", [-0.1]), ("Bath", [-0.5])],
    "aspect 2": [("in 1813", [-0.2])],
}


@pytest.fixture
def long_form():
    collection = make_collection("lf")
    topic = make_topic(collection, "t1", n_subquestions=3)
    sq0, sq1, sq2 = topic.subquestions.order_by("position")
    passages = make_passages(collection, "t1", 2)
    run = make_run(collection, "bm25", topic, passages)
    report = make_output(topic, "sys", passages)
    human = make_judge("ann", kind=Judge.Kind.HUMAN)
    # A highlighted span answering sub-question 0; sub-question 1 is judged unanswered (its
    # span does not count); sub-question 2 has a stored reference answer only.
    for sq, rating, span in ((sq0, 1, "Jane Austen"), (sq1, 0, "nothing here")):
        Judgment.objects.create(
            judge=human,
            topic=topic,
            subquestion=sq,
            output=report,
            task=Judgment.Task.REPORT_COVERAGE,
            rating=rating,
            rationale=span,
        )
    sq2.reference_answers = ["1813"]
    sq2.save(update_fields=["reference_answers"])
    # People rated passage 1 as answering sub-question 0 (4 >= 3) and passage 0 as not (2).
    for passage, rating in ((passages[1], 4), (passages[0], 2)):
        Judgment.objects.create(
            judge=human,
            topic=topic,
            subquestion=sq0,
            passage=passage,
            task=Judgment.Task.PASSAGE_RATING,
            rating=rating,
        )
    return collection, topic, (sq0, sq1, sq2), run, passages


def _models() -> SeperModels:
    generator, nli = ScriptedGenerator(SCRIPT), WordNLI()
    return SeperModels(generator.model_id, nli.model_id, lambda: generator, lambda: nli)


def _job(collection, run):
    params = {"run_id": run.pk, "k": 1, "n_samples": 2, "temperature": 1.0, "seed": 0}
    return Job.objects.create(kind=KIND, collection=collection, params=params)


def test_references_are_spans_of_answered_positions_and_stored_answers(long_form):
    _, topic, (sq0, sq1, sq2), _, _ = long_form
    assert subquestion_references([topic.pk]) == {sq0.pk: ["Jane Austen"], sq2.pk: ["1813"]}


def test_the_job_scores_each_subquestion_with_references(long_form):
    collection, topic, (sq0, sq1, sq2), run, _ = long_form
    job = run_seper_job(_job(collection, run), _models())
    assert job.state == "succeeded", job.errors
    rows = SeperScore.objects.filter(topic=topic)
    assert set(rows.values_list("subquestion_id", flat=True)) == {sq0.pk, sq2.pk}
    baseline = rows.get(subquestion=sq0, context_kind="none")
    assert baseline.detail["golds"] == ["Jane Austen"]
    # Weights softmax(-0.1, -0.5): "Jane Austen" carries the larger share and matches.
    assert baseline.seper_h == pytest.approx(1 / (1 + 2.718281828**-0.4), rel=1e-6)
    assert rows.get(subquestion=sq2, context_kind="none").seper_h == pytest.approx(1.0)
    assert rows.filter(subquestion=sq0, context_kind="run", k=1).exists()
    # The oracle of a sub-question: the passages people rated as answering it.
    oracle = rows.get(subquestion=sq0, context_kind="oracle")
    assert oracle_texts(units_for_topics([topic])[0]) == [long_form[4][1].text]
    assert not rows.filter(subquestion=sq2, context_kind="oracle").exists()
    assert oracle.delta_s is not None
    # A re-run stores nothing new.
    count = rows.count()
    run_seper_job(_job(collection, run), _models())
    assert SeperScore.objects.filter(topic=topic).count() == count


def test_the_page_shows_each_subquestion_and_labels_its_responses(
    long_form, researcher_client, researcher
):
    collection, topic, (sq0, _, _), run, _ = long_form
    run_seper_job(_job(collection, run), _models())
    page = researcher_client.get(reverse("seper-topic", args=[collection.pk, topic.pk]))
    html = page.content.decode()
    assert 'id="seper-subquestion-0"' in html and 'id="seper-subquestion-2"' in html
    assert "What is aspect 0 of t1?" in html and "Jane Austen" in html
    baseline = SeperScore.objects.get(subquestion=sq0, context_kind="none")
    bath = [r["text"] for r in baseline.detail["responses"]].index("Bath")
    url = reverse("seper-topic-response-equivalence", args=[collection.pk, topic.pk])
    response = researcher_client.post(
        url, {"score": baseline.pk, "response": bath, "answer": "yes"}
    )
    assert response.status_code == 200
    assert "differs from the kernel" in response.content.decode()
    label = AnswerEquivalenceLabel.objects.get()
    assert label.subquestion == sq0 and label.response_index == bath
    assert label.key == equivalence_key(topic.pk, "Bath", sq0.pk)
    assert label.equivalent is True and label.machine_decision is False
    decision = AnswerEquivalenceDecision.objects.get()
    assert (decision.key, decision.equivalent, decision.source) == (label.key, False, "sample")
    page = researcher_client.get(reverse("seper-topic", args=[collection.pk, topic.pk]))
    assert f'id="response-equivalence-{baseline.pk}-{bath}"' in page.content.decode()
