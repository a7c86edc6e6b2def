"""The nugget judging Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.runner import job_to_run
from evaluation.backends.model_ids import judge_model
from evaluation.nuggets.job import NuggetModels, run_nugget_job


def nugget_models() -> NuggetModels:
    """The workers' judge (JUDGE_MODEL, else the generator's model), known without loading."""
    judge = judge_model(None)
    return NuggetModels(judge_id=judge.model_id, load_judge=judge.load)


@shared_task(name="evaluation.nuggets.tasks.gpu_nuggets", ignore_result=True)
def gpu_nuggets(job_id: int) -> None:
    job = job_to_run(job_id)
    if job is None:
        return
    run_nugget_job(job, nugget_models())
