"""The answer-generation Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run
from evaluation.answers.job import KIND, run_answer_job
from evaluation.backends.registry import get_generator


@shared_task(name=job_task_name(KIND), ignore_result=True)
def generate_answers(job_id: int) -> None:
    """Generate and store the missing short answers of a ``generate_answers`` job."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_answer_job(job, get_generator)
