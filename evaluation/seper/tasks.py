"""The SePer Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run, refused
from crux_app.models import Job
from evaluation.backends.model.ids import generator_model, nli_model
from evaluation.seper.job import KIND, SeperModels, run_seper_job


def require_logprobs() -> None:
    """SePer weighs sampled answers by their probability: served models must return log-probs."""
    generator_model().require_logprobs("SePer (each sampled answer's probability)")
    nli_model().require_logprobs("SePer's NLI step (label probabilities)")


def seper_models() -> SeperModels:
    """The workers' generator and NLI model; a job with every row stored loads neither."""
    generator, nli = generator_model(), nli_model()
    return SeperModels(
        generator_id=generator.model_id,
        nli_id=nli.model_id,
        load_generator=generator.load,
        load_nli=nli.load,
    )


def run_seper(job: Job) -> Job:
    """The task's work (and the CLI's): refused when a served model lacks log-probs."""
    if refused(job, require_logprobs):
        return job
    return run_seper_job(job, seper_models())


@shared_task(name=job_task_name(KIND), ignore_result=True)
def seper(job_id: int) -> None:
    """Score and store the missing SePer / Delta-SePer rows of a ``seper`` job."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_seper(job)
