"""The LLM-retEval Celery task (routed to the ``gpu`` queue by its ``gpu_`` name)."""

from celery import shared_task
from django.conf import settings

from crux_app.models import Job
from evaluation.backends.model_loading import generator_id
from evaluation.backends.registry import get_generator
from evaluation.tasks import judge_model
from reteval.job import RetEvalModels, run_reteval_job


def reteval_models() -> RetEvalModels:
    """The workers' generator and judge (JUDGE_MODEL, else the generator's model); their ids
    are known without loading them, so a job with everything stored loads nothing."""
    judge = judge_model(None)
    return RetEvalModels(
        generator_id=generator_id(settings.GENERATOR_MODEL),
        judge_id=judge.model_id,
        load_generator=get_generator,
        load_judge=judge.load,
    )


@shared_task(name="reteval.tasks.gpu_reteval", ignore_result=True)
def gpu_reteval(job_id: int) -> None:
    """Generate, judge and store the missing LLM-retEval rows of a ``reteval`` job."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None:
        return  # deleted before a worker got to it: nothing to do
    run_reteval_job(job, reteval_models())
