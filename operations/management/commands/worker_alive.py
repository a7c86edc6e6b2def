"""``manage.py worker_alive --queue gpu [--worker gpu@host]``: a worker's liveness check for its
supervisor (Docker's HEALTHCHECK, systemd, Kubernetes' exec probe): exits 0 when a worker of
the queue (or the named worker) reported its heartbeat within the stale limit, 1 when none did."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crux_app.jobs.heartbeat import live_workers


class Command(BaseCommand):
    help = (
        "Exit 0 when a live worker (a fresh heartbeat, as the job pages count them) consumes "
        "--queue (or is --worker); exit 1 when none does."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--queue", help="a queue the live worker must consume (e.g. gpu)")
        parser.add_argument("--worker", help="the worker's node name (e.g. gpu@host)")

    def handle(self, *args: object, queue: str | None, worker: str | None, **options: object):
        if not queue and not worker:
            raise CommandError("give --queue, --worker or both")
        workers = live_workers()
        if worker:
            workers = workers.filter(hostname=worker)
        alive = [w.hostname for w in workers if not queue or queue in w.queues]
        wanted = " and ".join(
            part for part in (f"queue {queue}" if queue else "", worker or "") if part
        )
        if not alive:
            raise CommandError(f"no live worker for {wanted}", returncode=1)
        self.stdout.write(f"alive: {', '.join(alive)}")
