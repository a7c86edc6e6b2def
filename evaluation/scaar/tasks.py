"""Celery task of the SCAAR job (routed to the ``gpu`` queue by its name)."""

from celery import shared_task
from django.conf import settings

from crux_app.models import Job
from evaluation.backends.model_loading import embedder_id, generator_id
from evaluation.backends.registry import get_embedder, get_generator
from evaluation.scaar.engine import ScaarModels
from evaluation.scaar.job import run_scaar_job


def scaar_models() -> ScaarModels:
    """The workers' generator and embedder; their ids are known without loading them, so a
    job with every row stored loads nothing."""
    return ScaarModels(
        generator_id=generator_id(settings.GENERATOR_MODEL),
        embedder_id=embedder_id(settings.EMBED_MODEL),
        load_generator=get_generator,
        load_embedder=get_embedder,
    )


@shared_task(name="evaluation.scaar.tasks.gpu_scaar", ignore_result=True)
def gpu_scaar(job_id: int) -> None:
    """Analyse and store the missing SCAAR rows of a ``scaar`` job."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        return  # deleted before a worker got to it: nothing to do
    run_scaar_job(job, scaar_models())
