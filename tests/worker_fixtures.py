"""A real ``celery worker`` subprocess against the test database and Redis databases 5 and 6.

Loaded for every folder by the root conftest's ``pytest_plugins``. Tests using it carry
``@pytest.mark.worker`` (tests/architecture/test_test_markers.py checks it) and must be
transactional (``@pytest.mark.django_db(transaction=True)``): the worker is another process and
only sees committed rows. Redis redelivers the task of a killed worker once it is older than
the broker's visibility timeout; the workers started here get ``CELERY_VISIBILITY_TIMEOUT`` =
``VISIBILITY_TIMEOUT_S`` (read by crux_app/settings/jobs.py) so that a restarted worker picks the
task up within seconds instead of after the default hour.

Nothing of the caller's environment chooses the broker: Celery prefers ``CELERY_BROKER_URL``
and ``CELERY_RESULT_BACKEND`` from the environment over the app's configuration, so
``start_worker`` removes them from this process while it runs, configures the app explicitly,
and starts each worker with every ``CELERY_*`` variable of the caller stripped and the test
URLs set.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings

from crux_app.celery import app as celery_app

# Redis databases (broker, results) per pytest-xdist process, so that processes of one run never
# take each other's tasks; overridable so that test sessions running side by side do not either.
# Never 0 and 1: the app's own broker and results (a demo running on the same machine).
_XDIST_REDIS_DATABASES = {
    "master": (5, 6),
    "gw0": (5, 6),
    "gw1": (3, 4),
    "gw2": (11, 12),
    "gw3": (13, 14),
}
_XDIST_PROCESS = os.environ.get("PYTEST_XDIST_WORKER", "master")
if _XDIST_PROCESS not in _XDIST_REDIS_DATABASES and "TEST_WORKER_BROKER_URL" not in os.environ:
    raise RuntimeError(
        f"pytest-xdist process {_XDIST_PROCESS} has no Redis databases of its own: run with at "
        "most -n 4, or set TEST_WORKER_BROKER_URL and TEST_WORKER_RESULT_URL"
    )
_BROKER_DB, _RESULT_DB = _XDIST_REDIS_DATABASES.get(_XDIST_PROCESS, (5, 6))
BROKER_URL = os.environ.get("TEST_WORKER_BROKER_URL", f"redis://127.0.0.1:6379/{_BROKER_DB}")
RESULT_URL = os.environ.get("TEST_WORKER_RESULT_URL", f"redis://127.0.0.1:6379/{_RESULT_DB}")
VISIBILITY_TIMEOUT_S = 4
# A worker environment with tiny leases and sweeps, so that a killed worker's shard is taken
# over within seconds (the default grace is a minute).
FAST_LEASES = {
    "JOB_LEASE_HEARTBEAT_SECONDS": "0.3",
    "JOB_LEASE_GRACE_SECONDS": "1.5",
    "WORKER_HEARTBEAT_SECONDS": "0.5",
}
READY_TIMEOUT_S = 90
CELERY = Path(sys.executable).with_name("celery")
# Read by Celery itself in preference to the app's configuration
# (celery.app.utils.Settings.broker_url, broker_read_url, broker_write_url, result_backend).
CELERY_OVERRIDE_VARIABLES = (
    "CELERY_BROKER_URL",
    "CELERY_BROKER_READ_URL",
    "CELERY_BROKER_WRITE_URL",
    "CELERY_RESULT_BACKEND",
)


class WorkerProcess:
    """One running worker; ``log`` is everything it printed so far."""

    def __init__(self, process: subprocess.Popen, log_path: Path, env: dict[str, str]) -> None:
        self.process = process
        self.log_path = log_path
        self.env = env  # the environment it was started with

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def log_tail(self, chars: int = 4000) -> str:
        return self.log[-chars:]

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-task without acknowledging its message."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        """Cold shutdown (SIGQUIT): the broker is flushed before the next test anyway."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def _test_database_url() -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


def wait_until_ready(worker: WorkerProcess) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if " ready." in worker.log:
            return
        if worker.process.poll() is not None:
            pytest.fail(f"celery worker exited with {worker.process.returncode}:\n{worker.log}")
        time.sleep(0.2)
    pytest.fail(f"celery worker not ready after {READY_TIMEOUT_S} s:\n{worker.log_tail()}")


def worker_environment(broker_url: str, result_url: str, database_url: str) -> dict[str, str]:
    """A worker's environment: this process's without any ``CELERY_*`` variable (the caller's
    broker, backend, eager mode or filesystem transport must not reach it), plus the test's."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CELERY_")}
    env.update(
        {
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url,
            "CELERY_RESULT_BACKEND": result_url,
            "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT_S),
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "PYTHONUNBUFFERED": "1",
            # One OpenMP/torch thread, as in-process model tests use: threads spinning against
            # the 2 busy cores of CI slowed generation about 10x.
            "OMP_NUM_THREADS": "1",
            "TORCH_NUM_THREADS": "1",
        }
    )
    return env


def _use_broker(broker_url: str | None, result_url: str | None) -> None:
    """Point this process's Celery app (it sends the tasks) at the given Redis databases."""
    celery_app.conf.broker_url = broker_url
    celery_app.conf.result_backend = result_url
    # Celery keeps its connection and producer pools and its result backend for the life of
    # the process (it only drops them after a fork); ones made by earlier tests would still
    # reach the old URLs.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    celery_app._backend_cache = None
    vars(celery_app._local).pop("backend", None)


@pytest.fixture
def start_worker(transactional_db, tmp_path, monkeypatch) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real workers on queues gpu and cpu; every one still alive is stopped at teardown.

    Depends on ``transactional_db`` so the workers are gone before the test data is flushed.
    The workers' environment is taken when this fixture is set up.
    """
    for url in (BROKER_URL, RESULT_URL):
        redis.Redis.from_url(url).flushdb()
    env = worker_environment(BROKER_URL, RESULT_URL, _test_database_url())
    for name in CELERY_OVERRIDE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    # Tasks go to the worker, never run in this process, whatever the caller exported.
    monkeypatch.setattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
    previous = (celery_app.conf.get("broker_url"), celery_app.conf.get("result_backend"))
    _use_broker(BROKER_URL, RESULT_URL)
    workers: list[WorkerProcess] = []

    def start(
        extra_env: dict[str, str] | None = None, wait: bool = True, queues: str = "gpu,cpu"
    ) -> WorkerProcess:
        """One more worker of ``queues``; ``extra_env`` adds to (or overrides) its environment.
        Without ``wait``, call ``wait_until_ready`` (several workers then boot side by side)."""
        log_path = tmp_path / f"worker-{len(workers)}.log"
        command = [
            str(CELERY), "-A", "crux_app", "worker", "-Q", queues,
            "--pool", "solo", "--concurrency", "1",
            "--without-heartbeat", "--without-gossip", "--without-mingle",
            "--loglevel", "INFO", "--hostname", f"jobtest{len(workers)}@%h",
        ]  # fmt: skip
        with log_path.open("wb") as log:
            process_env = {**env, **(extra_env or {})}
            process = subprocess.Popen(
                command,
                cwd=settings.BASE_DIR,
                env=process_env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        worker = WorkerProcess(process, log_path, process_env)
        workers.append(worker)
        if wait:
            wait_until_ready(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
    _use_broker(*previous)
