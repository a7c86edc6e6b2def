"""The demo collections with one closed-book answer generated for SCAAR's end-to-end tests."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from crux_app.models import Collection, GeneratedOutput, Job, Topic
from evaluation.answers.job import AnswerJobParams, run_answer_job

QA_TOPIC = "demo-qa-2"  # "Which gas do plants take in ...?" (gold: carbon dioxide / CO2)
REPORT = "bm25_demo-1"  # an imported report of the demo collection, without log-probs


def load_demo_with_an_answer(generator) -> GeneratedOutput:
    """Load both demo collections and generate one closed-book demo-qa answer with log-probs."""
    call_command("load_demo", stdout=StringIO())
    qa = Collection.objects.get(name="demo-qa")
    topic = Topic.objects.get(collection=qa, external_id=QA_TOPIC)
    params = AnswerJobParams(run_id=None, max_new_tokens=24).as_params()
    job = Job.objects.create(kind="generate_answers", params=params, collection=qa, topic=topic)
    run_answer_job(job, lambda: generator)
    return GeneratedOutput.objects.get(collection=qa, topic=topic)
