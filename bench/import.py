"""Benchmark: import a generated CRUX hub release into PostgreSQL, then export its labels.

    .venv/bin/python bench/import.py [--topics 5000] [--subquestions 15] [--passages 20]

Generates (seeded, in a temporary folder) a release in the hub layout: topics.tsv/jsonl,
questions.jsonl, per-passage judgements (plus the oracle report's), qrels, diversity qrels and
passages/. Times ``import_crux`` through the service, a second identical import (the upsert
path), and the qrels-shaped export of the release judge's labels. DATABASE_URL names a scratch
database (default postgres://postgres@127.0.0.1:5432/crux_bench), created when missing.

Baselines measured in the same run, so the ratios survive a noisy machine: the imported rows
COPY'd back (files dumped from the tables, then ``COPY FROM``, rolled back) into bare copies of
their tables (no index, no key: what moving the bytes costs) and into copies that carry the
tables' indexes (what the schema costs before any import code runs). With ``--previous``, the
same release is also imported through the ORM path (batched upserts, per-row foreign-key
triggers), which the importer keeps for databases without COPY.
"""

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.scratch_database import setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench"
COLLECTION = "bench-crux-release"
SPLIT, TAU = "testb", 3
WORDS = [
    "budget",
    "senate",
    "minister",
    "report",
    "election",
    "treaty",
    "market",
    "court",
    "police",
    "storm",
    "vaccine",
    "river",
    "strike",
    "council",
    "trade",
    "summit",
    "protest",
    "airline",
    "satellite",
    "museum",
    "harvest",
    "tariff",
    "ruling",
]
# Mostly unanswerable, as in CRUX: ratings 0..5 with falling weights.
RATING_WEIGHTS = [55, 10, 10, 10, 8, 7]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def write_release(root: Path, topics: int, subquestions: int, passages: int, seed: int) -> dict:
    """Write the release under ``root``; returns how many lines each file got."""
    rng = random.Random(seed)
    folder = root / f"ranking_{TAU}"
    folder.mkdir(parents=True)
    (root / "passages").mkdir()
    lines = dict.fromkeys(("topics", "passages", "judgements", "qrels", "div_qrels"), 0)
    with (
        (folder / f"{SPLIT}_topics.tsv").open("w") as tsv,
        (folder / f"{SPLIT}_topics.jsonl").open("w") as topics_jsonl,
        (folder / f"{SPLIT}_questions.jsonl").open("w") as questions_jsonl,
        (folder / f"{SPLIT}_oracle-passages_judgements.jsonl").open("w") as judgements,
        (folder / f"{SPLIT}_qrels_pr.txt").open("w") as qrels,
        (folder / f"{SPLIT}_div_qrels_pr.txt").open("w") as div_qrels,
        (root / "passages" / "corpus.jsonl").open("w") as corpus,
    ):
        for t in range(topics):
            qid = f"bench-{t}"
            request = f"Write a report on {_sentence(rng, 8)}"
            questions = [f"What about {_sentence(rng, 6)[:-1]}?" for _ in range(subquestions)]
            tsv.write(f"{qid}\t{request}\n")
            record = {"example_id": qid, "topic": request, "questions": questions}
            topics_jsonl.write(json.dumps({**record, "report": _sentence(rng, 120)}) + "\n")
            questions_jsonl.write(json.dumps(record) + "\n")
            lines["topics"] += 1
            count = rng.randint(passages - 4, passages + 4)
            for j in range(count):
                pid = f"{qid}:{j // 3}#{j}"
                corpus.write(json.dumps({"id": pid, "contents": _sentence(rng, 70)}) + "\n")
                rating = rng.choices(range(6), RATING_WEIGHTS, k=subquestions)
                judgements.write(
                    json.dumps({"example_id": qid, "pid": pid, "rating": rating}) + "\n"
                )
                qrels.write(f"{qid} 0 {pid} {rng.randint(1, 3)}\n")
                for i, value in enumerate(rating):
                    if value >= 3:
                        div_qrels.write(f"{qid} {i + 1} {pid} 1\n")
                        lines["div_qrels"] += 1
                lines["passages"] += 1
                lines["judgements"] += 1
                lines["qrels"] += 1
            report_rating = rng.choices(range(6), RATING_WEIGHTS, k=subquestions)
            judgements.write(
                json.dumps({"example_id": qid, "pid": f"{qid}:report", "rating": report_rating})
                + "\n"
            )
            lines["judgements"] += 1
    return lines


def drop_collection(name: str) -> None:
    """Remove an earlier run's collection; judgments go first, in SQL, as they are the bulk."""
    from django.db import connection

    from crux_app.models import Collection, Judgment, PassageQrel, SubtopicQrel, Topic

    collection = Collection.objects.filter(name=name).first()
    if collection is None:
        return
    with connection.cursor() as cursor:
        for model in (Judgment, SubtopicQrel, PassageQrel):
            cursor.execute(
                f"DELETE FROM {model._meta.db_table} WHERE topic_id IN "
                f"(SELECT id FROM {Topic._meta.db_table} WHERE collection_id = %s)",
                [collection.pk],
            )
    collection.delete()


# The tables an import_crux writes, and how to find one collection's rows in each.
_OF_TOPICS = "topic_id IN (SELECT id FROM crux_app_topic WHERE collection_id = %s)"
IMPORTED_TABLES = {
    "crux_app_topic": "collection_id = %s",
    "crux_app_subquestion": _OF_TOPICS,
    "crux_app_generatedoutput": "collection_id = %s",
    "crux_app_passage": "collection_id = %s",
    "crux_app_judgment": _OF_TOPICS,
    "crux_app_passageqrel": _OF_TOPICS,
    "crux_app_subtopicqrel": _OF_TOPICS,
}


def copy_baselines(collection_id: int, workdir: Path) -> dict[str, tuple[float, int]]:
    """Seconds and rows to COPY the collection's imported rows into bare copies of their tables
    and into copies with the tables' indexes (no foreign keys); nothing is kept."""
    from django.db import connection, transaction

    dumps = {}
    with connection.cursor() as cursor:
        for table, where in IMPORTED_TABLES.items():
            dumps[table] = workdir / f"{table}.copy"
            query = f"COPY (SELECT * FROM {table} WHERE {where}) TO STDOUT (FORMAT binary)"
            with dumps[table].open("wb") as out, cursor.cursor.copy(query, [collection_id]) as copy:
                for block in copy:
                    out.write(block)
    timings = {}
    for variant, like in (("bare", ""), ("indexed", " INCLUDING INDEXES")):
        rows, seconds = 0, 0.0
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                for table, path in dumps.items():
                    copy_table = f"bench_{variant}_{table}"
                    cursor.execute(f"CREATE TABLE {copy_table} (LIKE {table}{like})")
                    started = time.perf_counter()
                    with (
                        cursor.cursor.copy(f"COPY {copy_table} FROM STDIN (FORMAT binary)") as copy,
                        path.open("rb") as dump,
                    ):
                        while block := dump.read(1 << 20):
                            copy.write(block)
                    seconds += time.perf_counter() - started
                    cursor.execute(f"SELECT count(*) FROM {copy_table}")
                    rows += cursor.fetchone()[0]
                raise _RollBack
        except _RollBack:
            pass
        timings[variant] = (seconds, rows)
    return timings


class _RollBack(Exception):
    """Leaves the baseline's tables out of the database."""


def _rate(rows: int, seconds: float) -> str:
    return f"{seconds:.1f} s, {rows:,} rows, {rows / seconds:,.0f} rows/s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--subquestions", type=int, default=15)
    parser.add_argument("--passages", type=int, default=20, help="passages per topic (mean)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--previous",
        action="store_true",
        help="also time the ORM path (batched upserts, per-row key checks) on the same release",
    )
    args = parser.parse_args()

    setup_django(DEFAULT_URL)
    from crux_app.dataio import rating_vectors, staged_upsert
    from crux_app.dataio.export_labels import export_labels
    from crux_app.dataio.imports.crux import (
        RELEASE_JUDGE_MODEL,
        RELEASE_PROMPT_VERSION,
        import_crux,
    )
    from crux_app.dataio.reference_checks import may_skip_row_triggers
    from crux_app.models import Judge, Judgment

    previous = f"{COLLECTION}-previous"
    drop_collection(COLLECTION)
    drop_collection(previous)
    with tempfile.TemporaryDirectory(prefix="crux-bench-") as workdir:
        release = Path(workdir) / "crux"
        started = time.perf_counter()
        lines = write_release(release, args.topics, args.subquestions, args.passages, args.seed)
        print(f"generated release in {time.perf_counter() - started:.1f} s: {lines}")
        checks = "set-based" if may_skip_row_triggers(Judgment) else "per-row triggers"
        print(f"foreign keys checked: {checks}")

        timings = {}
        for attempt in ("first import", "re-import (no changes)"):
            started = time.perf_counter()
            result = import_crux(COLLECTION, release, split=SPLIT, tau=TAU)
            timings[attempt] = time.perf_counter() - started
            rows = sum(result.counts.values())
            print(f"{attempt}: {_rate(rows, timings[attempt])}")
        print(f"  counts: {result.counts}")

        for variant, (seconds, copied) in copy_baselines(
            result.collection_id, Path(workdir)
        ).items():
            print(
                f"baseline: raw COPY into {variant} tables: {_rate(copied, seconds)}; "
                f"first import takes {timings['first import'] / seconds:.1f}x"
            )
        if args.previous:
            uses_copy = staged_upsert.uses_copy
            staged_upsert.uses_copy = rating_vectors.uses_copy = lambda: False
            started = time.perf_counter()
            import_crux(previous, release, split=SPLIT, tau=TAU)
            seconds = time.perf_counter() - started
            staged_upsert.uses_copy = rating_vectors.uses_copy = uses_copy
            print(
                f"baseline: previous path (ORM batches, per-row key triggers): "
                f"{_rate(rows, seconds)}; first import is {seconds / timings['first import']:.1f}x "
                "faster"
            )

        judge = Judge.objects.get(
            kind=Judge.Kind.LLM, model_id=RELEASE_JUDGE_MODEL, prompt_version=RELEASE_PROMPT_VERSION
        )
        out = Path(workdir) / "qrels.jsonl"
        started = time.perf_counter()
        exported = export_labels(COLLECTION, judge.name, "qrels", out)
        seconds = time.perf_counter() - started
        judgments = result.counts.get("passage judgments", 0)
        print(
            f"export qrels: {seconds:.1f} s, {exported.lines:,} lines "
            f"({exported.lines / seconds:,.0f} lines/s, {judgments / seconds:,.0f} judgments/s), "
            f"{out.stat().st_size / 1e6:.0f} MB"
        )


if __name__ == "__main__":
    main()
