"""Jobs read as what they are: each kind's label, the variant its parameters make (greedy,
distribution, sampled and UMBRELA judging differ), and a short, whole description of its
parameters; never the raw kind name (``judge_answerability #6``) or a cut one."""

import pytest
from django.urls import reverse

from crux_app.jobs.names import job_params_text, job_title
from crux_app.models import Collection, Job
from tests.crux_app.factories import make_collection

pytestmark = pytest.mark.django_db

JUDGING = {"scope": "collection", "k": 10, "run": None, "run_id": None, "model": None}


def make_job(kind: str, collection=None, **params) -> Job:
    return Job.objects.create(kind=kind, collection=collection, params=params)


def test_judging_jobs_read_differently_by_how_they_judge():
    greedy = make_job("judge_answerability", **JUDGING, method="llm", rubric="crux")
    dist = make_job("judge_answerability", **JUDGING, method="distribution", rubric="crux")
    umbrela = make_job("judge_answerability", **JUDGING, method="llm", rubric="umbrela")
    sampled = make_job(
        "judge_answerability", **JUDGING, method="llm", rubric="crux", temperature=0.7, seed=3
    )
    embedding = make_job("judge_embedding", **JUDGING, method="embedding", rubric="crux")
    assert job_title(greedy) == f"Judge answerability (greedy) #{greedy.pk}"
    assert job_title(dist) == f"Judge answerability (distribution) #{dist.pk}"
    assert job_title(umbrela) == f"Grade passages 0-3 (UMBRELA) #{umbrela.pk}"
    assert job_title(sampled) == f"Judge answerability (sampled at T=0.7, seed 3) #{sampled.pk}"
    assert job_title(embedding) == f"Judge by embedding (baseline) #{embedding.pk}"
    assert job_params_text(greedy) == "pooled top-10 of every run and the qrels"
    run_scoped = make_job("judge_answerability", **{**JUDGING, "scope": "run", "run": "bm25"})
    assert job_params_text(run_scoped) == "run bm25, top-10"


def test_every_kind_describes_its_parameters_whole():
    assert job_params_text(make_job("reteval", run="contexts", run_id=1, ks=[1, 3])) == (
        "run contexts, k = 1, 3"
    )
    assert job_params_text(make_job("reteval", run="bm25", run_id=1, ks=[5], max_questions=3)) == (
        "run bm25, k = 5, first 3 questions"
    )
    assert job_params_text(make_job("dense", run="bm25", run_id=1, k=3, refine=False)) == (
        "run bm25, top-3, no refinement"
    )
    assert job_params_text(make_job("seper", run="bm25", run_id=1, k=3, n_samples=5)) == (
        "run bm25, top-3, 5 samples"
    )
    assert job_params_text(make_job("seper", run=None, run_id=None, k=3, n_samples=5)) == (
        "no run: baseline and gold passages, 5 samples"
    )
    assert job_params_text(make_job("scaar", k=3, system=None)) == "every generated answer, k = 3"
    assert job_params_text(make_job("generate_answers", run=None, run_id=None, k=5)) == (
        "closed-book (no passages)"
    )
    assert job_params_text(make_job("import", format="trec_run", source="x/a.run", label="a.run"))
    # A job stored without a parameter its kind now reads still gets a name.
    old = make_job("dense")
    assert job_title(old) == f"DENSE #{old.pk}" and job_params_text(old) == ""
    gone = make_job("retired_kind")
    assert job_title(gone) == f"retired_kind #{gone.pk}"


def test_the_pages_show_the_names_never_the_raw_kind(researcher_client):
    collection = make_collection("names", kind=Collection.Kind.REPORT)
    dist = make_job(
        "judge_answerability", collection, **JUDGING, method="distribution", rubric="crux"
    )
    reteval = make_job("reteval", collection, run="contexts", run_id=1, ks=[1, 3])
    pages = [
        reverse("job-detail", args=[dist.pk]),
        reverse("collection-detail", args=[collection.pk]),
        reverse("job-list"),
    ]
    for url in pages:
        html = researcher_client.get(url).content.decode()
        assert "judge_answerability #" not in html, url
        assert "contexts@" not in html, url
    detail = researcher_client.get(reverse("job-detail", args=[dist.pk])).content.decode()
    assert f"<h1>Judge answerability (distribution) #{dist.pk}</h1>" in detail
    listing = researcher_client.get(reverse("collection-detail", args=[collection.pk])).text
    assert f"Judge answerability (distribution) #{dist.pk}" in listing
    assert f"LLM-retEval #{reteval.pk}" in listing and "run contexts, k = 1, 3" in listing
    jobs = researcher_client.get(reverse("job-list")).text
    assert "Judge answerability (distribution)" in jobs and "run contexts, k = 1, 3" in jobs
