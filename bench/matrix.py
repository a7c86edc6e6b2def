"""Time the topic coverage-matrix page on a synthetic 15 x 300 topic with 3 judges.

Usage: .venv/bin/python bench/matrix.py [--passages 300] [--subquestions 15] [--repeat 40]
Seeds a scratch database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
crux_bench_mx; created and migrated when missing, re-seeded each run) and prints, measured in
the same run and interleaved request by request so a busy machine slows all of them alike:

* the page's p50/p95 through the test client with its rows cached (``topic_cache``: the usual
  case, every selector change and reload after the first), and on a cache miss (the topic's
  cache entries deleted before each request), and the queries of each;
* floor: a page that does nothing, behind the same middleware, session and researcher check,
  through the same client (what any page of the site costs here);
* raw queries: the SQL statements of a cache miss replayed through a plain cursor (what the
  database alone costs);
* the page's parts: reading the rows, building the matrix from them, the payload (figure
  dict) and its JSON, and the matrix-area template.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_DEBUG", "false")  # no per-query logging, as in production
# A throwaway key: the bench serves nothing (production settings refuse to start without one).
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

from bench.scratch_database import setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_mx"
TARGET_MS = 50


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def percentile(ms: list[float], q: float) -> float:
    return statistics.quantiles(ms, n=100, method="inclusive")[int(q) - 1]


def floor_urlconf():
    """The project's URLs plus /bench-floor/: a researcher-only view that renders nothing."""
    from django.conf import settings
    from django.http import HttpResponse
    from django.urls import include, path
    from django.views import View

    from crux_app.roles import ResearcherRequiredMixin

    class Floor(ResearcherRequiredMixin, View):
        def get(self, request):
            return HttpResponse("ok")

    class URLs:  # a urlconf may be any object with ``urlpatterns``
        urlpatterns = [
            path("bench-floor/", Floor.as_view()),
            path("", include(settings.ROOT_URLCONF)),
        ]

    return URLs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--subquestions", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()

    setup_django(DEFAULT_URL)
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.template.loader import render_to_string
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings
    from django.urls import reverse

    from crux_app.models import Collection, Judge, Topic
    from crux_app.roles import RESEARCHER, add_role
    from evaluation.crux.matrix import stored, topic_cache
    from evaluation.crux.matrix.matrix import build_matrix, matrix_options
    from evaluation.crux.matrix.payload import matrix_payload, payload_script
    from tests.evaluation.crux.matrix_seed import seed_large_topic

    Collection.objects.filter(name="matrix-bench").delete()
    Judge.objects.filter(name__startswith="matrix-bench-").delete()
    topic = seed_large_topic(n_subquestions=args.subquestions, n_passages=args.passages)
    with connection.cursor() as cursor:  # as autovacuum would after a bulk load
        cursor.execute("ANALYZE")
    user, _ = get_user_model().objects.get_or_create(username="bench-researcher")
    add_role(user, RESEARCHER)
    client = Client(HTTP_HOST="localhost")  # an allowed host under the production settings
    client.force_login(user)
    url = reverse("crux-topic", args=[topic.collection_id, topic.pk]) + "?k=20"

    # The ratings come as one binary read on psycopg's own cursor, which Django's query log
    # does not see: count those reads too.
    binary_reads: list[object] = []
    read_ratings = stored.int_columns

    def counted(*a, **kw):
        binary_reads.append(a)
        return read_ratings(*a, **kw)

    topic = Topic.objects.select_related("collection").get(pk=topic.pk)
    run = matrix_options(topic).default_run
    keys = [topic_cache.cache_key(topic, "topic"), topic_cache.cache_key(topic, f"run:{run.id}")]

    def queries_of_one_request() -> tuple[list[str], int]:
        binary_reads.clear()
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        return [q["sql"] for q in queries.captured_queries], len(binary_reads)

    stored.int_columns = counted
    with override_settings(ROOT_URLCONF=floor_urlconf()):
        assert client.get(url).status_code == 200  # warm up
        assert client.get("/bench-floor/").status_code == 200
        warm_sql, warm_binary = queries_of_one_request()
        cache.delete_many(keys)
        cold_sql, cold_binary = queries_of_one_request()

        def raw_queries() -> None:
            with connection.cursor() as cursor:
                for sql in cold_sql:
                    cursor.execute(sql)
                    cursor.fetchall()
            stored.rating_rows(topic)

        page, cold, floor, raw = [], [], [], []
        for _ in range(args.repeat):
            floor.append(timed(lambda: client.get("/bench-floor/")))
            raw.append(timed(raw_queries))
            page.append(timed(lambda: client.get(url)))
            cache.delete_many(keys)
            cold.append(timed(lambda: client.get(url)))
    stored.int_columns = read_ratings

    rows = topic_cache.read_topic_rows(topic)
    options = rows.options
    judge = options.default_judge
    ranked = topic_cache.read_run_rows(topic, run.id)
    as_stored = topic_cache.stored_topic(topic, rows, run, ranked)
    matrix = build_matrix(topic, options, judge, run, 3, 20, as_stored)
    payload = matrix_payload(matrix, "/cell/")
    context = {
        "topic": topic,
        "matrix": matrix,
        "payload": payload,
        "payload_script": payload_script(payload, "matrix-data"),
        "selection": None,
    }
    read, build, figure, encode, template = [], [], [], [], []
    for _ in range(args.repeat):
        read.append(
            timed(
                lambda: (
                    topic_cache.read_topic_rows(topic),
                    topic_cache.read_run_rows(topic, run.id),
                )
            )
        )
        build.append(timed(lambda: build_matrix(topic, options, judge, run, 3, 20, as_stored)))
        figure.append(timed(lambda: matrix_payload(matrix, "/cell/")))
        encode.append(timed(lambda: payload_script(payload, "matrix-data")))
        template.append(
            timed(lambda: render_to_string("evaluation/crux/_matrix_area.html", context))
        )

    def report(name: str, ms: list[float]) -> None:
        print(
            f"{name:<34} p50 {statistics.median(ms):6.1f} ms   p95 {percentile(ms, 95):6.1f} ms"
            f"   best {min(ms):6.1f} ms"
        )

    print(
        f"topic {args.subquestions} sub-questions x {args.passages} passages, "
        f"{len(options.judges)} judges, {matrix.codes.size} cells, {args.repeat} requests each"
    )
    report("matrix page (?k=20), rows cached", page)
    report("matrix page, cache miss", cold)
    report("baseline: floor page (same client)", floor)
    report("baseline: the page's raw queries", raw)
    p50 = statistics.median(page)
    print(
        f"page / floor p50: {p50 / statistics.median(floor):.1f}x   "
        f"page - floor p50: {p50 - statistics.median(floor):.1f} ms   "
        f"target p50 < {TARGET_MS} ms: {'met' if p50 < TARGET_MS else 'MISSED'} (cached), "
        f"{'met' if statistics.median(cold) < TARGET_MS else 'MISSED'} (cache miss)"
    )
    print(
        f"queries per request: {len(warm_sql) + warm_binary} cached, "
        f"{len(cold_sql) + cold_binary} on a miss ({cold_binary} of them the binary ratings "
        "read; session, user and role checks included)"
    )
    report("  read the rows (the miss's queries)", read)
    report("  build_matrix from the rows", build)
    report("  payload dict (figure)", figure)
    report("  payload JSON (json_script)", encode)
    report("  matrix area template", template)


if __name__ == "__main__":
    main()
