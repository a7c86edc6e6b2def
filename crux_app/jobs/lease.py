"""While a worker runs a shard: a thread renews the shard's lease every few seconds (a batch
that calls a model for minutes still counts as alive), and the attempt's soft time limit
interrupts the work where it stands.

The soft limit raises Celery's ``SoftTimeLimitExceeded`` in the thread running the task, as
Celery's prefork pool does, from a ``SIGALRM`` timer: the solo pool (one worker per GPU) has no
time limits of its own. Off the main thread (a threads pool) no timer can be set; the runner's
check before each batch still stops the job.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection

from crux_app.models import JobShard

from .shards import renew_lease

logger = logging.getLogger(__name__)


class Lease:
    """The lease of one claimed shard; ``lost`` is set once a renewal finds it gone.

    Counting a batch renews the lease too (``renewed``): the thread writes only when no batch
    was counted for a heartbeat period, so short batches cost no extra statement."""

    def __init__(self, shard: JobShard) -> None:
        self.shard = shard
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._renewed_at = time.monotonic()
        self._thread = threading.Thread(target=self._beat, name=f"lease-{shard.pk}", daemon=True)

    def renewed(self) -> None:
        """A batch's count refreshed the heartbeat (crux_app.jobs.shards.record_batch)."""
        self._renewed_at = time.monotonic()

    def _beat(self) -> None:
        period = settings.JOB_LEASE_HEARTBEAT_SECONDS
        try:
            while not self._stop.wait(max(0.0, self._renewed_at + period - time.monotonic())):
                if time.monotonic() - self._renewed_at < period:
                    continue  # a batch was counted meanwhile
                try:
                    alive = renew_lease(self.shard)
                except Exception:  # a database hiccup: the next beat tries again in the grace
                    logger.warning("shard %s: lease not renewed", self.shard.pk, exc_info=True)
                    connection.close()  # a broken connection is opened afresh next beat
                    self._renewed_at = time.monotonic()
                    continue
                self._renewed_at = time.monotonic()
                if not alive:
                    logger.warning("%s: lease lost (taken over or ended): stopping", self.shard)
                    self.lost.set()
                    return
        finally:
            connection.close()  # this thread's own connection, kept over its beats

    def __enter__(self) -> Lease:
        # Inside a transaction (a job run in-process within an atomic block: a test, a
        # caller's own transaction) the shard's claim is not committed: the thread's own
        # connection would not see it and take the lease for lost, and no other worker can
        # see the shard to take it over either, so there is nothing to renew.
        if not connection.in_atomic_block:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=settings.JOB_LEASE_HEARTBEAT_SECONDS + 5)


def _raise_soft_limit(signum: int, frame: object) -> None:
    raise SoftTimeLimitExceeded("soft time limit")


@contextmanager
def soft_time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``SoftTimeLimitExceeded`` in this thread after ``seconds`` (main thread only;
    None: no limit)."""
    usable = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if seconds is None or not usable:
        yield
        return
    if seconds <= 0:
        raise SoftTimeLimitExceeded("soft time limit")
    previous = signal.signal(signal.SIGALRM, _raise_soft_limit)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
