"""The DENSE Celery task (routed to the ``gpu`` queue by its ``gpu_`` name)."""

from celery import shared_task
from django.conf import settings

from crux_app.models import Job
from dense.job import DenseModels, run_dense_job
from evaluation.backends.model_loading import embedder_id
from evaluation.backends.registry import get_embedder
from evaluation.tasks import seper_models


def dense_models() -> DenseModels:
    """The workers' generator, NLI judge (NLI_MODEL: empty = DENSE's B.2 prompt on the
    generator, else an NLI classifier) and embedder; ids are known without loading them."""
    base = seper_models()
    return DenseModels(
        generator_id=base.generator_id,
        nli_id=base.nli_id,
        embedder_id=embedder_id(settings.EMBED_MODEL),
        load_generator=base.load_generator,
        load_nli=base.load_nli,
        load_embedder=get_embedder,
    )


@shared_task(name="dense.tasks.gpu_dense", ignore_result=True)
def gpu_dense(job_id: int) -> None:
    """Evaluate and store the missing DENSE rows of a ``dense`` job."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        return  # deleted before a worker got to it: nothing to do
    run_dense_job(job, dense_models())
