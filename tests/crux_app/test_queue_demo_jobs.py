"""`queue_demo_jobs`: one valid job per method on the demo QA collection, queued once."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from crux_app.models import Job
from evaluation.dense.job import DenseJobParams
from evaluation.reteval.job import RetEvalJobParams
from evaluation.scaar.job import ScaarJobParams
from evaluation.seper.job import SeperJobParams

pytestmark = pytest.mark.django_db

PARSERS = {
    "reteval": RetEvalJobParams,
    "dense": DenseJobParams,
    "seper": SeperJobParams,
    "scaar": ScaarJobParams,
}


def queue() -> str:
    out = io.StringIO()
    call_command("queue_demo_jobs", stdout=out)
    return out.getvalue()


def test_queues_each_method_once_with_parameters_its_job_accepts():
    call_command("load_demo", stdout=io.StringIO())
    text = queue()
    jobs = list(Job.objects.order_by("pk"))
    # LLM-retEval first: SCAAR, queued last, then also analyses its RAG answers.
    assert [j.kind for j in jobs] == ["reteval", "dense", "seper", "scaar"]
    assert all(j.collection.name == "demo-qa" and j.state == Job.State.PENDING for j in jobs)
    # SePer, the slowest on CPU, scores one question; the others the collection.
    assert [j.topic.external_id if j.topic else None for j in jobs] == [
        None,
        None,
        "demo-qa-1",
        None,
    ]
    for job in jobs:
        PARSERS[job.kind].from_params(job.params)  # the job's own validation
    assert "reteval: queued job" in text
    assert "a job already exists" in queue()
    assert Job.objects.count() == 4


def test_without_the_demo_it_says_what_to_do():
    with pytest.raises(CommandError, match="run load_demo first"):
        queue()
