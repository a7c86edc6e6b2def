"""Time the pages of a collection of 10,000 topics: the collection page, its topic search, the
judging start page and the topic lookup of its search field.

Usage: .venv/bin/python bench/pages.py [--topics 10000] [--repeat 20]

Seeds a scratch database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
crux_bench_pages; created and migrated when missing, the bench's collection re-seeded each run)
with one collection of ``--topics`` topics (3 sub-questions and one passage each, one run
ranking every passage) and requests each page as a researcher through Django's test client,
interleaved request by request so a busy machine slows all of them alike. Printed per page:
p50 / p95 in milliseconds, the response size and the rows it renders. Baselines in the same
run: a page that does nothing behind the same middleware and researcher check (the floor), and
the previous collection page's topic query (every topic with its counts, unpaged). Also timed:
the judging page's item count, which the page asks for once it is shown.
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

from bench.matrix import floor_urlconf, percentile, timed  # noqa: E402
from bench.scratch_database import setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_pages"
COLLECTION = "pages-bench"
TARGET_MS = 300


def seed(n_topics: int):
    """The bench's collection: ``n_topics`` topics, 3 sub-questions and a passage each, a run."""
    from django.db import connection, transaction

    from crux_app.models import Collection, Passage, Run, RunEntry, SubQuestion, Topic

    Collection.objects.filter(name=COLLECTION).delete()
    with transaction.atomic():
        collection = Collection.objects.create(name=COLLECTION, kind=Collection.Kind.REPORT)
        topics = Topic.objects.bulk_create(
            Topic(
                collection=collection,
                external_id=f"topic-{i:05d}",
                request=f"Describe what is known about subject {i} and its history. " * 2,
            )
            for i in range(n_topics)
        )
        SubQuestion.objects.bulk_create(
            SubQuestion(topic=t, position=p, text=f"Aspect {p} of {t.external_id}?")
            for t in topics
            for p in range(3)
        )
        passages = Passage.objects.bulk_create(
            Passage(
                collection=collection,
                external_id=f"doc-{i:05d}",
                text=f"Passage {i}.",
                has_text=True,
            )
            for i in range(n_topics)
        )
        run = Run.objects.create(collection=collection, name="bm25")
        RunEntry.objects.bulk_create(
            RunEntry(run=run, topic=t, passage=p, rank=1, score=1.0, line_order=0)
            for t, p in zip(topics, passages, strict=True)
        )
    with connection.cursor() as cursor:  # as autovacuum would after a bulk load
        cursor.execute("ANALYZE")
    return collection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    setup_django(DEFAULT_URL)
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import override_settings
    from django.urls import reverse

    from crux_app.models import Topic
    from crux_app.roles import RESEARCHER, add_role

    started = time.perf_counter()
    collection = seed(args.topics)
    seed_s = time.perf_counter() - started
    user, _ = get_user_model().objects.get_or_create(username="bench-researcher")
    add_role(user, RESEARCHER)
    client = Client(HTTP_HOST="localhost")  # an allowed host under the production settings
    client.force_login(user)
    c = collection.pk
    pages = {
        "collection page": reverse("collection-detail", args=[c]),
        "collection page, page 100": reverse("collection-detail", args=[c]) + "?page=100",
        "collection page, search": reverse("collection-detail", args=[c]) + "?q=subject+4242",
        "judging start page": reverse("crux-start", args=[c]),
        "topic lookup (start page field)": reverse("topic-search", args=[c]) + "?topic=topic-042",
        "collections list": reverse("collection-list"),
    }
    # Asked by the start page once it is shown (not part of the page's time): the job's plan.
    count_url = reverse("crux-start-count", args=[c]) + "?scope=collection"

    def previous_topic_query() -> None:
        list(Topic.objects.filter(collection=collection).with_counts())

    times: dict[str, list[float]] = {name: [] for name in pages}
    floor, previous = [], []
    with override_settings(ROOT_URLCONF=floor_urlconf()):
        sizes = {}
        for name, url in pages.items():  # warm up, and check every page answers
            response = client.get(url)
            if response.status_code != 200:
                raise SystemExit(f"GET {url}: status {response.status_code}")
            html = response.content.decode()
            sizes[name] = (len(response.content), html.count("<tr") + html.count("<option"))
        for _ in range(args.repeat):
            floor.append(timed(lambda: client.get("/bench-floor/")))
            for name, url in pages.items():
                times[name].append(timed(lambda url=url: client.get(url)))
        counts = []
        for _ in range(max(3, args.repeat // 5)):
            previous.append(timed(previous_topic_query))
            counts.append(timed(lambda: client.get(count_url)))

    print(
        f"pages of a collection of {args.topics:,} topics (seeded in {seed_s:.1f} s), "
        f"{args.repeat} requests each, target < {TARGET_MS} ms"
    )
    width = max(len(name) for name in pages) + 2
    for name, ms in times.items():
        size, rows = sizes[name]
        verdict = "OK" if percentile(ms, 50) < TARGET_MS else "OVER TARGET"
        print(
            f"  {name:<{width}} p50 {percentile(ms, 50):7.1f} ms  p95 {percentile(ms, 95):7.1f} ms"
            f"  {size / 1024:8.1f} KiB  {rows:5d} rows/options  {verdict}"
        )
    print(f"  {'floor (a do-nothing page)':<{width}} p50 {statistics.median(floor):7.1f} ms")
    print(
        f"  {'previous page: every topic with counts, query only':<{width}} "
        f"median {statistics.median(previous):7.1f} ms"
    )
    print(
        f"  {'start page item count, asked after the page shows':<{width}} "
        f"median {statistics.median(counts):7.1f} ms (the judging job's plan of every item)"
    )


if __name__ == "__main__":
    main()
