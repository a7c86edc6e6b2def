"""The base of the commands that print a method's stored results and, with ``--compute``, first
run the method's job in this process (``--dry-run``: only print what that would cost): the
flags, the cost estimate and the in-process job, shared as imports share ``ImportCommand``."""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from django.core.management.base import BaseCommand, CommandError

from crux_app.command_output import write_estimate
from crux_app.jobs.estimate import job_estimate
from crux_app.models import Collection, Job, Topic


class ComputeCommand(BaseCommand):
    """``job_kind``: the kind ``--compute`` runs; ``job_what``: its name in messages."""

    job_kind: ClassVar[str]
    job_what: ClassVar[str]

    def add_compute_arguments(
        self,
        parser: ArgumentParser,
        compute_help: str,
        dry_run_help: str,
        compute_group: Any = None,
    ) -> None:
        """``--compute`` (run the missing work first; in ``compute_group``, a mutually
        exclusive group, if given) and ``--dry-run`` (only its cost)."""
        (compute_group or parser).add_argument("--compute", action="store_true", help=compute_help)
        parser.add_argument("--dry-run", action="store_true", help=dry_run_help)

    def print_estimate(
        self,
        params: Mapping[str, Any],
        collection: Collection,
        topic: Topic | None = None,
        *,
        dry_run: bool,
        what: str | None = None,
    ) -> None:
        """Print what the job would cost; a CommandError for parameters the job refuses."""
        try:
            estimate = job_estimate(self.job_kind, dict(params), collection, topic)
        except ValueError as error:
            raise CommandError(str(error).replace("job parameter", "option")) from None
        write_estimate(self, what or self.job_what, estimate, dry_run)

    def compute_job(
        self,
        params: Mapping[str, Any],
        collection: Collection,
        run_job: Callable[[Job], Job],
        topic: Topic | None = None,
        what: str | None = None,
    ) -> Job:
        """Run the job in this process; a CommandError naming its first error if it failed."""
        what = what or self.job_what
        job = Job.objects.create(
            kind=self.job_kind, params=dict(params), collection=collection, topic=topic
        )
        self.stderr.write(f"{what}: job #{job.pk}…")
        job = run_job(job)
        if job.state != Job.State.SUCCEEDED:
            first = job.errors[0]["message"] if job.errors else ""
            raise CommandError(f"{what}: job #{job.pk} {job.state}: {job.message}; error: {first}")
        self.stderr.write(f"{what}: job #{job.pk} {job.state}: {job.message}")
        return job
