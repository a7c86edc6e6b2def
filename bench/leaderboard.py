"""Time the leaderboard page of a TREC-sized collection: cold (computed) against warm (cached).

Usage: .venv/bin/python bench/leaderboard.py [--topics 5000] [--repeat 5]

Loads the metrics bench's synthetic collection (``--topics`` x 100 passages x 15 sub-questions,
3 runs, one LLM judge, qrels; ``bench.evaluate_collection``) into a scratch database
(DATABASE_URL, default postgres://postgres@127.0.0.1:5432/crux_bench_lb; dropped and created
afresh) and requests the page as a researcher, the whole request through Django's test client:

- cold: the first request at a new data version, which computes everything (the uncached
  computation, the baseline); measured ``--cold`` times, bumping the version before each;
- warm: the same request again, served from the cache (``--repeat`` times);
- after a write: one judgment rewritten through the importers' store, then the request.

It checks that the warm page shows the cold page's numbers, and that after the write the page
was recomputed (a new data version), and prints the cache backend in use (Redis when the broker
is Redis; CACHE_URL=locmem:// for the process's memory).

``--live``: a campaign's stream of writes. Each of ``--changes`` writes changes one rating of
one topic through an ORM save (which names its topic: ``data_version.bump_topics``), then the
page is requested: only that topic's per-topic values are computed again (``unit_cache``), and
the request's time is set against the cold one (target: at most 0.05 x). The bench checks that
the page after the change shows exactly what a cold computation of the same rows shows, and
times the per-request combination (per-topic values -> a run's figures, Kendall tau) alone.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_DEBUG", "false")  # no per-query logging, as in production
# A throwaway key: the bench serves nothing (production settings refuse to start without one).
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_lb"
# whitenoise serves through the finders here; STATIC_ROOT exists only after collectstatic.
warnings.filterwarnings("ignore", "No directory at")


def _request(client, url: str) -> tuple[float, object]:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise SystemExit(f"GET {url}: status {response.status_code}")
    return elapsed, response


def _numbers(response) -> list[tuple]:
    """The page's table: every row's run and values, in the order shown."""
    return [(record["run"], *values) for record, values in response.context["table"]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--passages", type=int, default=100)
    parser.add_argument("--questions", type=int, default=15)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold", type=int, default=2, help="cold requests (best is shown)")
    parser.add_argument("--repeat", type=int, default=5, help="warm requests")
    parser.add_argument(
        "--live",
        action="store_true",
        help="time the page after one rating of one topic changes (recompute what changed)",
    )
    parser.add_argument("--changes", type=int, default=3, help="--live: changes timed (median)")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the scratch database when it holds the collection already (skip the load)",
    )
    args = parser.parse_args(argv)

    import numpy as np

    from bench import evaluate_collection as bench_db
    from bench import scratch_database
    from bench.metrics import RELEVANT_ROWS, generate

    os.environ.setdefault("DATABASE_URL", DEFAULT_URL)
    scratch_database.setup_django(DEFAULT_URL, fresh=not args.reuse)
    from crux_app.models import Collection

    load_s, counts = 0.0, {}
    if not Collection.objects.filter(name=bench_db.COLLECTION).exists():
        data = generate(args.topics, args.passages, args.questions, seed=0)
        rng = np.random.default_rng(1)
        orders = [data.runs] + [
            rng.permuted(np.tile(np.arange(args.passages), (args.topics, 1)), axis=1)
            for _ in range(args.runs - 1)
        ]
        started = time.perf_counter()
        counts = bench_db.load(
            data.batch.ratings, data.batch.required, RELEVANT_ROWS, orders, data.passage_tokens
        )
        load_s = time.perf_counter() - started

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.cache import caches
    from django.db import transaction
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from crux_app import data_version
    from crux_app.dataio.collection_store import CollectionStore
    from crux_app.dataio.label_store import JudgmentRow, upsert_judgments
    from crux_app.models import Judge, Judgment, Topic
    from crux_app.roles import RESEARCHER, add_role

    setup_test_environment()  # responses carry their template context (the table's numbers)
    settings.TOKENIZER_MODEL = "whitespace"  # as the metrics bench counts tokens
    user, _ = get_user_model().objects.get_or_create(username="bench-researcher")
    add_role(user, RESEARCHER)
    client = Client(HTTP_HOST="localhost")  # an allowed host under the production settings
    client.force_login(user)
    collection = Collection.objects.get(name=bench_db.COLLECTION)
    url = reverse("leaderboard", args=[collection.pk])

    cold = []
    for _ in range(args.cold):
        data_version.bump(collection.pk)
        elapsed, first = _request(client, url)
        cold.append(elapsed)
    warm = []
    for _ in range(args.repeat):
        elapsed, again = _request(client, url)
        warm.append(elapsed)
    same = _numbers(first) == _numbers(again)

    # A write through a real path: one judgment's rating changes through the importers' store.
    before = data_version.current(collection.pk)
    judgment = Judgment.objects.filter(topic__collection=collection).order_by("pk").first()
    judge = Judge.objects.get(pk=judgment.judge_id)
    row = JudgmentRow(
        judgment.topic_id,
        judgment.subquestion_id,
        judgment.passage_id,
        judgment.task,
        5 - judgment.rating,
    )
    with transaction.atomic():
        CollectionStore(collection)
        upsert_judgments(judge, [row], "passage")
    after_s, _ = _request(client, url)
    recomputed = data_version.current(collection.pk) != before

    if counts:
        size = ", ".join(f"{v:,} {name}" for name, v in counts.items())
        loaded = f"loaded with COPY in {load_s:.1f} s ({size})"
    else:
        loaded = "the scratch database's collection kept from a previous run (--reuse)"
    topics = Topic.objects.filter(collection=collection).count()
    best_cold, best_warm = min(cold), min(warm)
    print(
        f"leaderboard page, {topics} topics x {args.passages} passages x "
        f"{args.questions} sub-questions x {args.runs} runs "
        f"(cache: {type(caches['default']).__name__})"
    )
    print(f"  {loaded}")
    print(
        f"  cold, computed (baseline)     {best_cold:8.3f} s  (best of {len(cold)}: "
        + ", ".join(f"{t:.3f}" for t in cold)
        + ")"
    )
    print(
        f"  warm, cached                  {best_warm:8.3f} s  (best of {len(warm)}, median "
        f"{statistics.median(warm):.3f})"
    )
    print(f"  ratio cold / warm             {best_cold / best_warm:8.1f} x")
    # The importers' store names no topic: every topic is computed again (--live: one topic).
    print(f"  after an import's write       {after_s:8.3f} s  (recomputed: {recomputed})")
    print(f"  warm page shows the cold page's numbers: {'OK' if same else 'MISMATCH'}")
    if args.live:
        from bench.leaderboard_live import live

        live(client, url, collection, args.changes, best_cold, best_warm)


if __name__ == "__main__":
    main()
