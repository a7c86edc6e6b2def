"""The API's Celery task (autodiscovered by the worker; queue ``cpu``, the default)."""

from celery import shared_task

from api import collection_archive_job
from api.export_job import KIND, run_export_job
from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run


@shared_task(name=job_task_name(KIND), ignore_result=True)
def export_data(job_id: int) -> None:
    """Run an ``export`` job: write the export's file for its download link."""
    job = job_to_run(job_id)
    if job is not None:  # else deleted or cancelled before a worker got to it
        run_export_job(job)


@shared_task(name=job_task_name(collection_archive_job.KIND), ignore_result=True)
def archive_collection(job_id: int) -> None:
    """Run a ``collection_archive`` job: write the collection's archive for its download."""
    job = job_to_run(job_id)
    if job is not None:
        collection_archive_job.run_collection_archive_job(job)
