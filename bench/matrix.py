"""Time the topic coverage-matrix page on a synthetic 15 x 300 topic with 3 judges.

Usage: .venv/bin/python bench/matrix.py [--passages 300] [--subquestions 15] [--repeat 10]
Seeds a scratch database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
crux_bench_mx; created and migrated when missing, re-seeded each run) and prints the server
time of the whole request and of its parts, and the query count.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_DEBUG", "false")  # no per-query logging, as in production
# A throwaway key: the bench serves nothing (production settings refuse to start without one).
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

from bench.scratch_database import setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_mx"


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--subquestions", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()

    setup_django(DEFAULT_URL)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.template.loader import render_to_string
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from crux_app.models import Collection, Judge
    from crux_app.roles import RESEARCHER, add_role
    from evaluation.crux.matrix.figure import matrix_payload
    from evaluation.crux.matrix.matrix import build_matrix, matrix_options
    from tests.evaluation.crux.matrix_seed import seed_large_topic

    Collection.objects.filter(name="matrix-bench").delete()
    Judge.objects.filter(name__startswith="matrix-bench-").delete()
    topic = seed_large_topic(n_subquestions=args.subquestions, n_passages=args.passages)
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username="bench-researcher")
    add_role(user, RESEARCHER)
    client = Client()
    client.force_login(user)
    url = reverse("crux-topic", args=[topic.collection_id, topic.pk]) + "?k=20"
    assert client.get(url).status_code == 200  # warm up

    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    n_queries = len(queries.captured_queries)  # read now: later requests reset the log
    page = timed(lambda: client.get(url), args.repeat)

    options = matrix_options(topic)
    judge, run = options.default_judge, options.default_run
    build = timed(lambda: build_matrix(topic, options, judge, run, 3, 20), args.repeat)
    matrix = build_matrix(topic, options, judge, run, 3, 20)
    figure = timed(lambda: matrix_payload(matrix, "/cell/"), args.repeat)
    payload = matrix_payload(matrix, "/cell/")
    context = {"topic": topic, "matrix": matrix, "payload": payload, "selection": None}
    template = timed(
        lambda: render_to_string("evaluation/crux/_matrix_area.html", context), args.repeat
    )

    def report(name: str, ms: list[float]) -> None:
        print(f"{name:<28} median {statistics.median(ms):7.1f} ms   best {min(ms):7.1f} ms")

    print(
        f"topic {args.subquestions} sub-questions x {args.passages} passages, "
        f"{len(options.judges)} judges, {matrix.codes.size} cells"
    )
    report("whole request", page)
    report("  build_matrix (queries)", build)
    report("  figure + payload dict", figure)
    report("  matrix area template", template)
    print(f"queries per request: {n_queries} (session and user included)")


if __name__ == "__main__":
    main()
