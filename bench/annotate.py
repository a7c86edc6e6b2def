"""Benchmark: 50 concurrent annotators against gunicorn + PostgreSQL on a 100,000-item campaign.

    .venv/bin/python bench/annotate.py [--items 100000] [--annotators 50] [--duration 60]
        [--think 10]   (seconds per item; --think 0: no pause, the server saturated)

Builds (or reuses) a passage-rating campaign of ``--items`` items in a scratch database
(DATABASE_URL, default postgres://postgres@127.0.0.1:5432/crux_bench_an, created when missing,
migrated), logs in ``--annotators`` accounts by session, starts gunicorn on 127.0.0.1 and runs
one thread per annotator doing what the workspace does: fetch the next item (the background
prefetch, ``GET /annotate/<slug>/prefetch/?after=<current>``), then submit the current one
(``POST .../submit/``). Halfway through each item's think time an annotator also asks for a
page that does next to nothing (``/accounts/password_change/``: session, account, template):
the server's floor under the same load, printed beside the two so their ratio survives a
noisy machine. Before the load, a probe annotator makes the same requests one at a time in
this process (``bench/annotate_probe.py``): the queries of each and their latency without
concurrency, the floor's beside them. Prints p50/p95 latency of the three, throughput and errors,
checks that no item got more labels than the overlap, then stops the server. Only loopback
traffic; bounded by ``--duration`` seconds and ``--cycles`` per annotator.
"""

import argparse
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.annotate_campaign import CAMPAIGN, build_campaign, make_sessions  # noqa: E402
from bench.annotate_probe import probe  # noqa: E402
from bench.scratch_database import setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_an"
LOG = Path(tempfile.gettempdir()) / "crux-bench-annotate-gunicorn.log"
FLOOR_PATH = "/accounts/password_change/"  # login required, no query of its own
ASSIGNMENT = re.compile(r'data-assignment="(\d+)"')


def start_server(port: int, workers: int, threads: int, url: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": os.environ["DJANGO_SECRET_KEY"],
        "DATABASE_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "ERROR",
    }
    command = [
        str(ROOT / ".venv" / "bin" / "gunicorn"),
        "crux_app.wsgi:application",
        "--bind", f"127.0.0.1:{port}",
        "--workers", str(workers),
        "--threads", str(threads),
        "--log-level", "warning",
        "--preload",  # load Django (and WhiteNoise's file index) once, before forking
    ]  # fmt: skip
    # Its output goes to a log file: an inherited stdout would keep a caller's pipe open.
    log = LOG.open("w")
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:  # e.g. the port is taken
            raise SystemExit(f"gunicorn exited with code {server.returncode} (log: {LOG})")
        try:
            if requests.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=10).ok:
                warm_up(port, workers * threads)
                return server
        except requests.RequestException:
            time.sleep(0.3)
    stop_server(server)
    raise SystemExit(f"gunicorn did not answer within 60 s (log: {LOG})")


def warm_up(port: int, slots: int) -> None:
    """Concurrent requests until every worker has imported the URLconf (seconds, once)."""

    def hit(_: int) -> None:
        requests.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=60)

    for _ in range(3):
        with ThreadPoolExecutor(4 * slots) as pool:
            list(pool.map(hit, range(4 * slots)))


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


@dataclass
class Start:
    """Every annotator has its workspace open (workers warmed up) before the clock starts."""

    barrier: threading.Barrier
    deadline: float = 0.0


@dataclass
class Timings:
    next_ms: list[float] = field(default_factory=list)
    submit_ms: list[float] = field(default_factory=list)
    floor_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def annotate(
    base: str, session_key: str, start: "Start", cycles: int, think: float, out: Timings
) -> None:
    """One simulated annotator: open the workspace, wait for the others, then prefetch the
    next item and submit the current one, repeatedly."""
    http = requests.Session()
    http.cookies.set("sessionid", session_key)
    page = http.get(f"{base}/annotate/{CAMPAIGN}/", timeout=60)
    match = ASSIGNMENT.search(page.text)
    start.barrier.wait()
    if page.status_code != 200 or not match:
        with out.lock:
            out.errors.append(f"workspace: HTTP {page.status_code}")
        return
    current = match.group(1)
    headers = {"HX-Request": "true", "X-CSRFToken": http.cookies.get("csrftoken", "")}
    time.sleep(random.uniform(0, think))  # annotators do not all start on the same tick
    for n in range(cycles):
        if time.monotonic() > start.deadline:
            break
        started = time.perf_counter()
        nxt = http.get(
            f"{base}/annotate/{CAMPAIGN}/prefetch/", params={"after": current},
            headers=headers, timeout=30,
        )  # fmt: skip
        fetched = time.perf_counter()
        # The annotator reading and answering (not part of any latency); halfway, the floor.
        time.sleep(think / 2)
        floor_started = time.perf_counter()
        floor = http.get(f"{base}{FLOOR_PATH}", timeout=30)
        floor_ms = 1000 * (time.perf_counter() - floor_started)
        time.sleep(think / 2)
        sent_at = time.perf_counter()
        sent = http.post(
            f"{base}/annotate/{CAMPAIGN}/items/{current}/submit/",
            data={"rating": str(n % 6), "rationale": "", "time_spent_ms": "1500"},
            headers=headers, timeout=30,
        )  # fmt: skip
        done = time.perf_counter()
        with out.lock:
            out.next_ms.append(1000 * (fetched - started))
            out.submit_ms.append(1000 * (done - sent_at))
            out.floor_ms.append(floor_ms)
            if nxt.status_code not in (200, 204) or sent.status_code != 200:
                out.errors.append(f"next HTTP {nxt.status_code}, submit HTTP {sent.status_code}")
            if floor.status_code != 200 or "/accounts/login/" in floor.url:
                out.errors.append(f"floor HTTP {floor.status_code} ({floor.url})")
        match = ASSIGNMENT.search(nxt.text) if nxt.status_code == 200 else None
        if match is None:
            break
        current = match.group(1)


def report(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: no requests"
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return (
        f"{name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms, max {max(values):.1f} ms "
        f"(n={len(values)})"
    )


def check_invariants(campaign) -> str:
    from django.db.models import Max, Sum

    from annotation.models import Assignment
    from crux_app.models import Judgment

    items = campaign.items.aggregate(most=Max("annotations_done"), labels=Sum("annotations_done"))
    submitted = Assignment.objects.filter(campaign=campaign, state="submitted").count()
    judgments = Judgment.objects.filter(topic__collection=campaign.collection).count()
    ok = (items["most"] or 0) <= campaign.overlap and items["labels"] == submitted == judgments
    return (
        f"invariants {'OK' if ok else 'BROKEN'}: max labels per item {items['most']} "
        f"(overlap {campaign.overlap}), labels counted {items['labels']}, submitted "
        f"assignments {submitted}, mirrored judgments {judgments}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--overlap", type=int, default=2)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--cycles", type=int, default=500, help="most items per annotator")
    parser.add_argument(
        "--think", type=float, default=10.0, help="seconds an annotator spends on an item"
    )
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--probe-cycles", type=int, default=30, help="one-client requests timed in-process"
    )
    args = parser.parse_args()

    # One key for this process and the server: the sessions made here must verify there.
    os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
    url = setup_django(DEFAULT_URL)
    from django.db import connection

    started = time.perf_counter()
    campaign = build_campaign(args.items, args.overlap)
    with connection.cursor() as cursor:  # fresh planner statistics, as autovacuum would keep
        cursor.execute("ANALYZE annotation_campaignitem; ANALYZE annotation_assignment")
    keys = make_sessions(campaign, args.annotators)
    probed = probe(campaign, CAMPAIGN, FLOOR_PATH, args.probe_cycles)
    print(
        f"campaign ready in {time.perf_counter() - started:.1f} s: {campaign.items.count():,} "
        f"items, overlap {campaign.overlap}, {len(keys)} annotators"
    )
    server = start_server(args.port, args.workers, args.threads, url)
    timings = Timings()
    try:
        base = f"http://127.0.0.1:{args.port}"
        start = Start(threading.Barrier(len(keys) + 1))
        # The barrier's action runs once everyone has arrived, before anyone is released.
        start.barrier = threading.Barrier(
            len(keys) + 1,
            action=lambda: setattr(start, "deadline", time.monotonic() + args.duration),
        )
        threads = [
            threading.Thread(
                target=annotate, args=(base, key, start, args.cycles, args.think, timings)
            )
            for key in keys
        ]
        for thread in threads:
            thread.start()
        start.barrier.wait()
        load_started = time.perf_counter()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - load_started
    finally:
        stop_server(server)
    print(
        f"gunicorn {args.workers} workers x {args.threads} threads, {args.annotators} concurrent "
        f"annotators (think time {args.think:g} s), {elapsed:.1f} s of load, "
        f"{os.cpu_count()} CPU cores on this machine"
    )
    print("\n".join(probed))
    print(report("floor (login-only page GET)", timings.floor_ms))
    print(report("next item (prefetch GET)", timings.next_ms))
    print(report("submit (POST)", timings.submit_ms))
    if timings.floor_ms and timings.next_ms:
        floor = np.percentile(timings.floor_ms, [50, 95])
        for name, values in (("next item", timings.next_ms), ("submit", timings.submit_ms)):
            p50, p95 = np.percentile(values, [50, 95]) / floor
            print(f"{name} / floor: p50 {p50:.2f}x, p95 {p95:.2f}x")
    rate = len(timings.submit_ms) / elapsed
    print(f"throughput: {rate:.1f} submits/s; errors: {len(timings.errors)}")
    for error in sorted(set(timings.errors))[:5]:
        print(f"  {error}")
    print(check_invariants(campaign))


if __name__ == "__main__":
    main()
