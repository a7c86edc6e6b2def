"""Celery task of the SCAAR job (routed to the ``gpu`` queue by its name)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run, refused
from crux_app.models import Job
from evaluation.backends.model.ids import embedder_model, generator_model
from evaluation.scaar.engine import ScaarModels
from evaluation.scaar.job import KIND, run_scaar_job


def require_logprobs() -> None:
    generator_model().require_logprobs("SCAAR (each answer token's probability)")


def scaar_models() -> ScaarModels:
    """The workers' generator and embedder; their ids are known without loading them, so a
    job with every row stored loads nothing."""
    generator, embedder = generator_model(), embedder_model()
    return ScaarModels(
        generator_id=generator.model_id,
        embedder_id=embedder.model_id,
        load_generator=generator.load,
        load_embedder=embedder.load,
    )


def run_scaar(job: Job) -> Job:
    """The task's work (and the CLI's): refused when a served model lacks log-probs."""
    if refused(job, require_logprobs):
        return job
    return run_scaar_job(job, scaar_models())


@shared_task(name=job_task_name(KIND), ignore_result=True)
def scaar(job_id: int) -> None:
    """Analyse and store the missing SCAAR rows of a ``scaar`` job."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_scaar(job)
