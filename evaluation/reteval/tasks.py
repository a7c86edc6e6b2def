"""The LLM-retEval Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run
from evaluation.backends.model.ids import generator_model, judge_model
from evaluation.reteval.job import KIND, RetEvalModels, run_reteval_job


def reteval_models() -> RetEvalModels:
    """The workers' generator and judge (JUDGE_MODEL, else the generator's model); their ids
    are known without loading them, so a job with everything stored loads nothing."""
    generator, judge = generator_model(), judge_model(None)
    return RetEvalModels(
        generator_id=generator.model_id,
        judge_id=judge.model_id,
        load_generator=generator.load,
        load_judge=judge.load,
    )


@shared_task(name=job_task_name(KIND), ignore_result=True)
def reteval(job_id: int) -> None:
    """Generate, judge and store the missing LLM-retEval rows of a ``reteval`` job."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_reteval_job(job, reteval_models())
