"""What a job works on: its collection and its run, checked before any batch starts."""

from __future__ import annotations

from crux_app.models import Collection, Job, Run


def job_collection(job: Job) -> Collection:
    if job.collection is None:
        raise ValueError(f"job #{job.pk} has no collection")
    return job.collection


def job_run(job: Job, run_id: int | None) -> Run | None:
    """The run with ``run_id`` in the job's collection (None for no run id)."""
    collection = job_collection(job)
    if run_id is None:
        return None
    run = Run.objects.filter(pk=run_id, collection=collection).first()
    if run is None:
        raise ValueError(f"run id {run_id} does not exist in collection {collection.name!r}")
    return run


def required_job_run(job: Job, run_id: int) -> Run:
    """``job_run`` for jobs that cannot work without a run."""
    run = job_run(job, run_id)
    if run is None:
        raise ValueError(f"job #{job.pk} needs a run")
    return run
