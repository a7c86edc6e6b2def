"""crux_app's Celery tasks (autodiscovered by the worker). None is a job kind's declared ``gpu``
task, so they go to the default ``cpu`` queue (settings.CELERY_TASK_ROUTES)."""

from celery import shared_task

from crux_app.dataio.imports.job import KIND, run_import_job
from crux_app.dataio.upload_sweep import sweep_failed_uploads
from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run


@shared_task(name=job_task_name(KIND), ignore_result=True)
def import_data(job_id: int) -> None:
    """Run an ``import`` job: the catalog importer on the job's stored upload."""
    job = job_to_run(job_id)
    if job is not None:  # else deleted or cancelled before a worker got to it
        run_import_job(job)
    # The periodic sweep, without a beat process: uploads of imports that failed longer than
    # UPLOAD_FAILED_RETENTION_DAYS ago go (``manage.py sweep_uploads`` is its cron twin).
    sweep_failed_uploads()
