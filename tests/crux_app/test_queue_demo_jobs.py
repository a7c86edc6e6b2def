"""`queue_demo_jobs`: one valid job per method on its demo collection, queued once."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from crux_app.models import Job
from evaluation.crux.job import DISTRIBUTION, EMBEDDING, JudgeJobParams
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
    "judge_embedding": JudgeJobParams,
    "judge_answerability": JudgeJobParams,
}


def queue() -> str:
    out = io.StringIO()
    call_command("queue_demo_jobs", stdout=out)
    return out.getvalue()


def test_queues_each_method_once_with_parameters_its_job_accepts():
    call_command("load_demo", stdout=io.StringIO())
    text = queue()
    jobs = list(Job.objects.order_by("pk"))
    # The quick jobs in declaration order; SCAAR after LLM-retEval, whose RAG answers it needs
    # (and analyses); the LLM judge's distribution mode, declared slow, last.
    assert [(j.kind, j.collection.name) for j in jobs] == [
        ("judge_embedding", "demo"),
        ("seper", "demo-qa"),
        ("dense", "demo-qa"),
        ("reteval", "demo-qa"),
        ("scaar", "demo-qa"),
        ("judge_answerability", "demo"),
    ]
    assert all(j.state == Job.State.PENDING for j in jobs)
    # SePer, the slowest on CPU, scores one question; the others the collection.
    assert [j.topic.external_id if j.topic else None for j in jobs] == [
        None,
        "demo-qa-1",
        None,
        None,
        None,
        None,
    ]
    parsed = [PARSERS[job.kind].from_params(job.params) for job in jobs]  # the jobs' validation
    assert (parsed[0].method, parsed[-1].method) == (EMBEDDING, DISTRIBUTION)
    assert parsed[-1].scope == "collection" and parsed[-1].k == 10
    assert "reteval: queued job" in text and "judge_embedding: queued job" in text
    assert "a job already exists" in queue()
    assert Job.objects.count() == 6


def test_without_the_demo_it_says_what_to_do():
    with pytest.raises(CommandError, match="run load_demo first"):
        queue()
