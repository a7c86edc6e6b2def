"""The API's Celery task (autodiscovered by the worker; queue ``cpu``, the default)."""

from celery import shared_task

from api.export_job import TASK_NAME, run_export_job
from crux_app.jobs.runner import job_to_run


@shared_task(name=TASK_NAME, ignore_result=True)
def export_data(job_id: int) -> None:
    """Run an ``export`` job: write the export's file for its download link."""
    job = job_to_run(job_id)
    if job is not None:  # else deleted or cancelled before a worker got to it
        run_export_job(job)
