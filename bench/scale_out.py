"""Benchmark one judging job over 1, 2 and 4 worker processes: its shards spread over the
workers of the queue (crux_app.jobs.shards), so a latency-bound job finishes about N times
faster on N workers.

    .venv/bin/python bench/scale_out.py                   # 2,000 items, 1 2 4 workers
    .venv/bin/python bench/scale_out.py --items 400 --delay 0.1 --workers 1 2
    .venv/bin/python bench/scale_out.py --kill            # also: kill one of two workers halfway

The judge is the OpenAI-compatible backend (evaluation/backends/openai_generator.py) against a
local server that answers each request after ``--delay`` seconds (tests/delay_server.py): a
stand-in for a remote GPU server, since 2 cores cannot scale real model work. Every run judges
the same items afresh (the judge's stored judgments are deleted first). Prints one line per
worker count, ``workers N: T s, items/s R, efficiency E`` (E = speed-up over one worker / N),
then ``duplicates: D`` (stored results minus distinct items, over all runs); with ``--kill``,
``after kill: finished in T s, stored S of P planned, duplicates D`` (one of two workers gets
SIGKILL once half the items are done; the other takes its shard over after the grace period).
Works in the scratch database DATABASE_URL (default postgres://postgres@127.0.0.1:5432/
crux_bench_scale, recreated) and the Redis database --broker (flushed).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_DEBUG", "1")  # a development run: the built-in key is fine

from bench.scratch_database import setup_django  # noqa: E402
from tests.delay_server import DelayServer  # noqa: E402

CELERY = Path(sys.executable).with_name("celery")
SUBQUESTIONS, PASSAGES = 10, 10  # items per topic: sub-questions x passages of its run
LEASES = {
    "JOB_LEASE_HEARTBEAT_SECONDS": "0.5",
    "JOB_LEASE_GRACE_SECONDS": "3",
    "WORKER_HEARTBEAT_SECONDS": "1",
}


def make_collection(n_items: int):  # noqa: ANN201 (collection, run)
    """Topics of SUBQUESTIONS x PASSAGES items each, one run ranking each topic's passages."""
    from crux_app.models import Collection, Passage, Run, RunEntry, SubQuestion, Topic

    collection = Collection.objects.create(name="scale-out")
    run = Run.objects.create(collection=collection, name="bm25")
    for t in range(math.ceil(n_items / (SUBQUESTIONS * PASSAGES))):
        topic = Topic.objects.create(
            collection=collection, external_id=f"t{t}", request=f"Describe topic {t}."
        )
        SubQuestion.objects.bulk_create(
            SubQuestion(topic=topic, position=i, text=f"What is aspect {i} of topic {t}?")
            for i in range(SUBQUESTIONS)
        )
        passages = Passage.objects.bulk_create(
            Passage(
                collection=collection,
                external_id=f"t{t}:{i}",
                text=f"Passage {i} about topic {t}. " * 8,
                has_text=True,
            )
            for i in range(PASSAGES)
        )
        RunEntry.objects.bulk_create(
            RunEntry(run=run, topic=topic, passage=p, rank=i + 1, score=1 / (i + 1), line_order=i)
            for i, p in enumerate(passages)
        )
    return collection, run


def start_workers(n: int, env: dict[str, str], log_dir: Path) -> list[subprocess.Popen]:
    """``n`` solo-pool workers on the ``gpu`` queue, booted side by side; returns when ready."""
    workers, logs = [], []
    for i in range(n):
        log = log_dir / f"worker-{i}.log"
        logs.append(log)
        command = [
            str(CELERY), "-A", "crux_app", "worker", "-Q", "gpu", "--pool", "solo",
            "--concurrency", "1", "--without-heartbeat", "--without-gossip", "--without-mingle",
            "--loglevel", "INFO", "--hostname", f"scale{i}@%h",
        ]  # fmt: skip
        with log.open("wb") as out:
            workers.append(
                subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
            )
    deadline = time.monotonic() + 180
    for worker, log in zip(workers, logs, strict=True):
        while " ready." not in log.read_text(errors="replace"):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
    return workers


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGQUIT)
    for worker in workers:
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()


def run_job(collection, run, batch_size: int, workers: list[subprocess.Popen] | None = None):  # noqa: ANN001, ANN201
    """Judge every item afresh; (seconds, job); with ``workers``, SIGKILL the first halfway."""
    from crux_app.jobs.service import start_job
    from crux_app.models import Judgment
    from evaluation.crux.job import KIND, JudgeJobParams
    from evaluation.crux.judge_scope import RUN

    Judgment.objects.all().delete()
    params = JudgeJobParams(scope=RUN, run_id=run.pk, k=PASSAGES, batch_size=batch_size)
    started = time.monotonic()
    job = start_job(KIND, params.as_params(run), collection=collection)
    killed = False
    while not job.is_finished:
        time.sleep(0.05)
        job.refresh_from_db()
        if workers and not killed and job.total and job.done >= job.total / 2:
            workers[0].kill()
            killed = True
    return time.monotonic() - started, job


def duplicates() -> tuple[int, int]:
    """(stored judgments, stored minus distinct items)."""
    from crux_app.models import Judgment

    stored = Judgment.objects.count()
    distinct = Judgment.objects.values("subquestion_id", "passage_id").distinct().count()
    return stored, stored - distinct


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.25, help="server seconds per request")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--kill", action="store_true", help="also kill one of two workers")
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--logs", type=Path, default=REPO / "var" / "bench-scale-out")
    args = parser.parse_args()

    url = setup_django("postgres://postgres@127.0.0.1:5432/crux_bench_scale", fresh=True)
    import redis
    from django.conf import settings

    from crux_app.celery import app as celery_app

    redis.Redis.from_url(args.broker).flushdb()
    celery_app.conf.broker_url = args.broker
    server = DelayServer(delay_s=args.delay).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CELERY_")}
    env.update(
        {
            **LEASES,
            "DATABASE_URL": url,
            "CELERY_BROKER_URL": args.broker,
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "JUDGE_API_BASE": server.base_url,
            "JUDGE_MODEL": "delay-judge",
            "MODEL_API_MAX_CONCURRENCY": str(max(args.batch_size, 8)),
            "PYTHONUNBUFFERED": "1",
        }
    )
    args.logs.mkdir(parents=True, exist_ok=True)
    collection, run = make_collection(args.items)
    print(
        f"items: {args.items} (batch {args.batch_size}), server delay {args.delay} s per request, "
        f"at most {settings.JOB_MAX_SHARDS} shards",
        flush=True,
    )
    first_s = None
    total_duplicates = 0
    for n in args.workers:
        workers = start_workers(n, env, args.logs)
        try:
            seconds, job = run_job(collection, run, args.batch_size)
        finally:
            stop_workers(workers)
        if job.state != "succeeded":
            raise SystemExit(f"job #{job.pk} ended {job.state}: {job.message}")
        # The speed-up is over the first count (one worker; else its time x its count).
        first_s = first_s if first_s is not None else seconds * n
        efficiency = first_s / seconds / n
        stored, dups = duplicates()
        total_duplicates += dups
        print(
            f"workers {n}: {seconds:.1f} s, items/s {job.total / seconds:.1f}, "
            f"efficiency {efficiency:.2f}",
            flush=True,
        )
    print(f"duplicates: {total_duplicates}", flush=True)
    if args.kill:
        workers = start_workers(2, env, args.logs)
        try:
            seconds, job = run_job(collection, run, args.batch_size, workers=workers)
        finally:
            stop_workers(workers)
        stored, dups = duplicates()
        print(
            f"after kill: finished in {seconds:.1f} s, stored {stored} of {job.total} planned, "
            f"duplicates {dups} ({job.state})",
            flush=True,
        )
    server.shutdown()


if __name__ == "__main__":
    main()
