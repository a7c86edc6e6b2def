"""Time the upgrade of a database holding a 5,000-topic collection: from the schema of commit
8f9d228 (``operations.schema_states.EARLIER_STATE``) to today's, migration by migration.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/crux DJANGO_DEBUG=1 \
        .venv/bin/python bench/migrations_5000_topics.py [--topics 5000]

It works in its own database (``crux_migration_bench`` on DATABASE_URL's server, created and
dropped), never in DATABASE_URL's. Each migration runs in its own transaction: the longest one
is the longest any table stays locked for writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parents[1]
BENCH_DB = "crux_migration_bench"
SUBQUESTIONS, PASSAGES, RUNS = 3, 10, 2


def _admin(url: str, statement: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(statement)


def _fill(historical, topics: int) -> dict[str, int]:
    """A collection of ``topics`` topics written through the earlier schema's models."""
    model = historical.get_model
    collection = model("crux_app", "Collection").objects.create(name="bench", kind="report")
    topic_rows = model("crux_app", "Topic").objects.bulk_create(
        [
            model("crux_app", "Topic")(collection=collection, external_id=f"t{i}", request="Q?")
            for i in range(topics)
        ],
        batch_size=5000,
    )
    subquestions = model("crux_app", "SubQuestion").objects.bulk_create(
        [
            model("crux_app", "SubQuestion")(topic=t, position=p, text=f"aspect {p}?")
            for t in topic_rows
            for p in range(SUBQUESTIONS)
        ],
        batch_size=5000,
    )
    passages = model("crux_app", "Passage").objects.bulk_create(
        [
            model("crux_app", "Passage")(
                collection=collection, external_id=f"{t.external_id}:{j}", text="word " * 80
            )
            for t in topic_rows
            for j in range(PASSAGES)
        ],
        batch_size=5000,
    )
    judge = model("crux_app", "Judge").objects.create(name="bench-llm", kind="llm")
    judgment = model("crux_app", "Judgment")
    model("crux_app", "Judgment").objects.bulk_create(
        (
            judgment(
                judge=judge,
                topic_id=sq.topic_id,
                subquestion=sq,
                passage=passages[(sq.topic_id - topic_rows[0].pk) * PASSAGES + j],
                task="passage_rating",
                rating=(j + sq.position) % 6,
            )
            for sq in subquestions
            for j in range(PASSAGES)
        ),
        batch_size=5000,
    )
    entry = model("crux_app", "RunEntry")
    for r in range(RUNS):
        run = model("crux_app", "Run").objects.create(collection=collection, name=f"run{r}")
        entry.objects.bulk_create(
            (
                entry(run=run, topic=t, passage=passages[i * PASSAGES + j], rank=j + 1, score=1.0)
                for i, t in enumerate(topic_rows)
                for j in range(PASSAGES)
            ),
            batch_size=5000,
        )
    return {
        "topics": len(topic_rows),
        "sub-questions": len(subquestions),
        "passages": len(passages),
        "judgments": len(subquestions) * PASSAGES,
        "run entries": RUNS * topics * PASSAGES,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=5000)
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/crux")
    if not base.startswith(("postgres://", "postgresql://")):
        sys.exit("DATABASE_URL must be PostgreSQL")
    parts = urlsplit(base)
    bench_url = urlunsplit(parts._replace(path=f"/{BENCH_DB}"))
    _admin(base, f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
    _admin(base, f"CREATE DATABASE {BENCH_DB}")
    os.environ["DATABASE_URL"] = bench_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crux_app.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    sys.path.insert(0, str(REPO))
    try:
        import django

        django.setup()
        from django.db import connection
        from django.db.migrations.executor import MigrationExecutor

        from operations.schema_states import EARLIER_COMMIT, migrate_to_earlier_state

        historical = migrate_to_earlier_state()
        started = time.perf_counter()
        counts = _fill(historical, args.topics)
        print(
            f"schema of {EARLIER_COMMIT}: wrote {counts} in {time.perf_counter() - started:.1f} s"
        )

        times: dict[str, float] = {}
        began: dict[str, float] = {}

        def progress(action: str, migration=None, fake: bool = False) -> None:  # noqa: ANN001
            if action == "apply_start":
                began[str(migration)] = time.perf_counter()
            elif action == "apply_success":
                times[str(migration)] = time.perf_counter() - began[str(migration)]

        executor = MigrationExecutor(connection, progress)
        started = time.perf_counter()
        executor.migrate(executor.loader.graph.leaf_nodes())
        total = time.perf_counter() - started
        slowest = sorted(times.items(), key=lambda item: -item[1])[:5]
        print(f"migrated to today: {len(times)} migrations in {total:.2f} s")
        for name, seconds in slowest:
            print(f"  {seconds:7.3f} s  {name}")
        connection.close()
    finally:
        _admin(base, f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


if __name__ == "__main__":
    main()
