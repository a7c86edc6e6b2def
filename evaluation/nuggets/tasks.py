"""The nugget judging Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run
from evaluation.backends.model.ids import judge_model
from evaluation.nuggets.job import KIND, NuggetModels, run_nugget_job


def nugget_models() -> NuggetModels:
    """The workers' judge (JUDGE_MODEL, else the generator's model), known without loading."""
    judge = judge_model(None)
    return NuggetModels(judge_id=judge.model_id, load_judge=judge.load)


@shared_task(name=job_task_name(KIND), ignore_result=True)
def nuggets(job_id: int) -> None:
    job = job_to_run(job_id)
    if job is None:
        return
    run_nugget_job(job, nugget_models())
