"""The DENSE Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run, refused
from crux_app.models import Job
from evaluation.backends.model.ids import embedder_model, generator_model, nli_model
from evaluation.dense.job import KIND, DenseModels, run_dense_job


def require_logprobs() -> None:
    """DENSE's yes/no step and its NLI prompt read probabilities: served models must give them."""
    generator_model().require_logprobs("DENSE's yes/no step (the answer's probability)")
    nli_model().require_logprobs("DENSE's NLI step (label probabilities)")


def dense_models() -> DenseModels:
    """The workers' generator, NLI judge (NLI_MODEL: empty = DENSE's B.2 prompt on the
    generator, else an NLI classifier) and embedder; ids are known without loading them."""
    generator, nli, embedder = generator_model(), nli_model(), embedder_model()
    return DenseModels(
        generator_id=generator.model_id,
        nli_id=nli.model_id,
        embedder_id=embedder.model_id,
        load_generator=generator.load,
        load_nli=nli.load,
        load_embedder=embedder.load,
    )


def run_dense(job: Job) -> Job:
    """The task's work (and the CLI's): refused when a served model lacks log-probs."""
    if refused(job, require_logprobs):
        return job
    return run_dense_job(job, dense_models())


@shared_task(name=job_task_name(KIND), ignore_result=True)
def dense(job_id: int) -> None:
    """Evaluate and store the missing DENSE rows of a ``dense`` job."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_dense(job)
