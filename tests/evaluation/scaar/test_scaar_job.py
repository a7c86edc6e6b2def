"""The SCAAR job end to end on the demo data with the embedded generator and embedder."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Collection, GeneratedOutput, Job
from evaluation.backends.embedded import EMBEDDED_EMBEDDER_ID, EMBEDDED_GENERATOR_ID
from evaluation.scaar.engine import ScaarModels
from evaluation.scaar.job import KIND, ScaarJobParams, run_scaar_job
from evaluation.scaar.models import ScaarAnalysis
from tests.evaluation.scaar.demo_outputs import REPORT, load_demo_with_an_answer

pytestmark = [pytest.mark.models, pytest.mark.django_db]


def models(generator, embedder) -> ScaarModels:
    return ScaarModels(
        EMBEDDED_GENERATOR_ID, EMBEDDED_EMBEDDER_ID, lambda: generator, lambda: embedder
    )


def untouchable() -> ScaarModels:
    def refuse():
        raise AssertionError("a re-run with every row stored must not load a model")

    return ScaarModels(EMBEDDED_GENERATOR_ID, EMBEDDED_EMBEDDER_ID, refuse, refuse)


def scaar_job(collection, topic=None, **params) -> Job:
    config = ScaarJobParams(**params).as_params()
    return Job.objects.create(kind=KIND, params=config, collection=collection, topic=topic)


@pytest.fixture
def demo(embedded_generator):
    return load_demo_with_an_answer(embedded_generator)


def test_job_analyses_a_qa_answer_and_a_report_and_fills_the_pages(
    demo, embedded_generator, embedder, researcher_client
):
    answer = demo
    job = run_scaar_job(scaar_job(answer.collection), models(embedded_generator, embedder))
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "analysed 1, already stored 0"

    row = ScaarAnalysis.objects.get(output=answer)
    assert row.logprob_source == ScaarAnalysis.LogprobSource.STORED  # the answer's own log-probs
    sentences = row.detail["sentences"]
    assert row.n_sentences == len(sentences) >= 1
    assert row.n_retrievals == sum(s["triggered"] for s in sentences)
    assert row.flare_retrievals == sum(s["flare_triggered"] for s in sentences)
    words = [w for s in sentences for w in s["words"]]
    assert " ".join(words).split() == answer.text.split()
    for s in sentences:
        assert sum(s["normalised"]) == pytest.approx(len(s["words"]))
        assert all(0 < p <= 1 for p in s["probabilities"])
        assert all(t >= 0.8 for t in s["thresholds"])
        assert s["query"].startswith(answer.topic.request)
        if s["triggered"]:
            assert 1 <= len(s["retrieved"]) <= 3
    # Gold answers exist: the answer is scored, and regenerated when something was retrieved.
    assert row.score_metric == "f1" and row.score_before is not None
    assert row.score_after is not None
    assert bool(row.refined_text) == (row.n_retrievals > 0)
    # FLARE's retrievals regenerate the same answer too, scored the same way.
    assert row.flare_score_after is not None
    assert bool(row.flare_refined_text) == (row.flare_retrievals > 0)

    demo_collection = Collection.objects.get(name="demo")
    report = GeneratedOutput.objects.get(collection=demo_collection, external_id=REPORT)
    job = run_scaar_job(
        scaar_job(demo_collection, report.topic, system="bm25", refine=False),
        models(embedded_generator, embedder),
    )
    assert job.state == Job.State.SUCCEEDED, job.errors
    report_row = ScaarAnalysis.objects.get(output=report)
    assert report_row.logprob_source == ScaarAnalysis.LogprobSource.SCORED  # teacher-forced
    assert report_row.n_sentences >= 5 and report_row.score_before is None

    page = researcher_client.get(reverse("scaar-answer", args=[demo_collection.pk, report_row.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('class="scaar-sentence"') == report_row.n_sentences
    assert "Panama" in html and "scaar-figure-0" in html
    summary = researcher_client.get(reverse("scaar-collection", args=[answer.collection.pk]))
    assert summary.status_code == 200
    assert answer.external_id in summary.content.decode()

    out = StringIO()
    call_command("scaar", "--collection", "demo-qa", "--format", "json", stdout=out)
    printed = json.loads(out.getvalue())
    assert [a["output"] for a in printed["answers"]] == [answer.external_id]
    assert printed["answers"][0]["n_retrievals"] == row.n_retrievals
    assert printed["summaries"][0]["n_answers"] == 1
    assert printed["answers"][0]["flare_score_after"] == row.flare_score_after
    if row.flare_retrievals:
        expected = (row.flare_score_after - row.score_before) / row.flare_retrievals
        assert printed["summaries"][0]["flare_s_eff"] == pytest.approx(expected)

    again = run_scaar_job(scaar_job(answer.collection), untouchable())
    assert again.state == Job.State.SUCCEEDED
    assert again.message == "analysed 0, already stored 1"
    assert ScaarAnalysis.objects.filter(output=answer).count() == 1
