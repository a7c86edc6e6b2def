"""The answer-generation Celery task (on the ``gpu`` queue: its job kind's declared queue)."""

from celery import shared_task

from crux_app.jobs.runner import job_to_run
from evaluation.answers.job import run_answer_job
from evaluation.backends.registry import get_generator


@shared_task(name="evaluation.answers.tasks.gpu_generate_answers", ignore_result=True)
def gpu_generate_answers(job_id: int) -> None:
    """Generate and store the missing short answers of a ``generate_answers`` job."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_answer_job(job, get_generator)
