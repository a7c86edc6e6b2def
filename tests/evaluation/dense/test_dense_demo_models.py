"""DENSE end to end on the embedded models and the demo QA data: the job fills the question
page and the collection page (one question, k = 2, so it stays fast on a 2-core CPU)."""

import math
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Collection, Job, Run
from evaluation.dense.job import KIND, DenseJobParams, DenseModels, run_dense_job
from evaluation.dense.method.graph import CHUNK_LABELS
from evaluation.dense.models import DenseResult

pytestmark = [pytest.mark.models, pytest.mark.django_db]


def test_dense_job_on_embedded_models_fills_the_pages(
    embedded_generator, llm_nli, embedder, researcher_client
):
    qa_file = Path(settings.BASE_DIR) / "fixtures" / "demo_qa.jsonl"
    call_command("import_qa", "--collection", "demo-qa", str(qa_file))
    collection = Collection.objects.get(name="demo-qa")
    run = Run.objects.get(collection=collection, name="contexts")
    topic = collection.topics.get(external_id="demo-qa-1")
    config = DenseJobParams(
        run_id=run.pk, k=2, pool=3, max_steps=2, answer_max_new_tokens=8,
        rephrase_max_new_tokens=40,
    )  # fmt: skip
    job = Job.objects.create(
        kind=KIND, params=config.as_params(run), collection=collection, topic=topic
    )
    models = DenseModels(
        generator_id=embedded_generator.model_id,
        nli_id=llm_nli.model_id,
        embedder_id=embedder.model_id,
        load_generator=lambda: embedded_generator,
        load_nli=lambda: llm_nli,
        load_embedder=lambda: embedder,
    )
    job = run_dense_job(job, models)
    assert job.state == Job.State.SUCCEEDED, job.errors
    result = DenseResult.objects.get(topic=topic)
    d = result.detail
    assert len(d["W"]) == 3 and all(len(row) == 3 for row in d["W"])
    assert 0.0 <= result.dse <= math.log(3) + 1e-9
    assert result.uncertain == (result.dse > 0.2)
    assert len(d["labels"]) == 2 and set(d["labels"]) <= set(CHUNK_LABELS)
    assert len(d["rephrased"]) == 2 and all(isinstance(t, str) for t in d["rephrased"])
    assert len(d["responses"]) == 3 and result.answer == d["responses"][0]
    assert result.correct is not None  # demo-qa-1 has a gold answer
    assert (d["refinement"] is not None) == result.uncertain
    # Greedy decoding: the same prompts give the same answers (the engine's cache is new).
    again = run_dense_job(
        Job.objects.create(kind=KIND, params={**config.as_params(run), "threshold": 9.0},
                           collection=collection, topic=topic), models)  # fmt: skip
    assert again.state == Job.State.SUCCEEDED
    other = DenseResult.objects.exclude(pk=result.pk).get(topic=topic)
    assert other.detail["responses"] == d["responses"] and other.dse == result.dse

    page = researcher_client.get(reverse("dense-topic", args=[collection.pk, topic.pk]))
    assert page.status_code == 200 and "dense-graph-data" in page.content.decode()
    summary = researcher_client.get(reverse("dense-collection", args=[collection.pk]))
    assert summary.status_code == 200 and "contexts" in summary.content.decode()
