"""Time a full judge report: 100 runs x 50 topics x 1,000 judged passages per topic, 2,000
bootstrap resamples (target: seconds).

Usage: .venv/bin/python bench/judge_report.py [--runs 100] [--topics 50] [--judged 1000]
[--depth 100] [--resamples 2000] [--k 10]
Seeds a scratch database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
crux_bench_jr; created and migrated when missing, re-seeded each run) with two judges' passage
qrels (TREC-style, as ``import_qrels`` stores them): an LLM judge grading all ``--judged``
passages of every topic 0-3, and a person grading the same passages of a random 80% of the
topics (the LLM's grade moved by one for 30% of them), and ``--runs`` runs ranking ``--depth``
of each topic's passages (runs of varying quality). The report is nDCG@k with both judges,
the person as the reference (tau, tau-AP, per-topic tau, paired t-tests, PPI per run).

Baseline, in the same run: ir_measures' nDCG@k of the same runs under one judge's qrels
(the evaluation alone, from in-memory dicts), and the raw read of the qrels and runs as arrays.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/crux_bench_jr")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crux_app.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")  # no per-query logging, as in production
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

COLLECTION = "judge-report-bench"
LLM, HUMAN = "bench-jr-llm", "bench-jr-people"


def seed(n_runs: int, n_topics: int, n_judged: int, depth: int) -> dict[str, int]:
    import numpy as np

    from crux_app.dataio.pg_copy import insert_rows
    from crux_app.models import Collection, Judge, Passage, PassageQrel, Run, RunEntry, Topic

    Collection.objects.filter(name=COLLECTION).delete()
    Judge.objects.filter(name__in=[LLM, HUMAN]).delete()
    Judge.objects.create(name=LLM, kind="llm", model_id="bench", prompt_version="v1")
    Judge.objects.create(name=HUMAN, kind="human")
    rng = np.random.default_rng(0)
    collection = Collection.objects.create(name=COLLECTION)
    topics = Topic.objects.bulk_create(
        Topic(collection=collection, external_id=f"t{i:03d}", request=f"Topic {i}")
        for i in range(n_topics)
    )
    insert_rows(
        Passage,
        ["collection_id", "external_id", "text", "has_text"],
        (
            (collection.pk, f"{t.external_id}:{p}", "", False)
            for t in topics
            for p in range(n_judged)
        ),
    )
    passages = np.array(
        Passage.objects.filter(collection=collection).order_by("pk").values_list("pk", flat=True)
    ).reshape(n_topics, n_judged)
    topic_ids = np.array([t.pk for t in topics])
    # Most passages are not relevant; a few are highly.
    truth = rng.choice(4, size=(n_topics, n_judged), p=[0.8, 0.1, 0.06, 0.04])
    llm = np.clip(truth + (rng.random(truth.shape) < 0.3) * rng.choice([-1, 1], truth.shape), 0, 3)
    labelled = rng.random(n_topics) < 0.8
    rows = [
        (int(topic_ids[t]), int(passages[t, p]), int(llm[t, p]), LLM)
        for t in range(n_topics)
        for p in range(n_judged)
    ]
    rows += [
        (int(topic_ids[t]), int(passages[t, p]), int(truth[t, p]), HUMAN)
        for t in np.flatnonzero(labelled)
        for p in range(n_judged)
    ]
    n_qrels = insert_rows(PassageQrel, ["topic_id", "passage_id", "grade", "source"], rows)
    runs = Run.objects.bulk_create(
        Run(collection=collection, name=f"run{r:03d}") for r in range(n_runs)
    )
    quality = np.linspace(0.2, 3.0, n_runs)

    def entries():
        for r, run in enumerate(runs):
            for t in range(n_topics):
                # A better run puts relevant passages higher: score = quality * truth + noise.
                score = quality[r] * truth[t] + rng.normal(0, 1.5, n_judged)
                order = np.argsort(-score)[:depth]
                for rank, p in enumerate(order.tolist()):
                    yield (run.pk, int(topic_ids[t]), int(passages[t, p]), rank + 1, 0.0, rank)

    n_entries = insert_rows(
        RunEntry, ["run_id", "topic_id", "passage_id", "rank", "score", "line_order"], entries()
    )
    return {"qrels": n_qrels, "run entries": n_entries, "labelled topics": int(labelled.sum())}


def baseline(k: int) -> dict[str, float]:
    """ir_measures alone on the same runs (in-memory dicts), and the raw array reads."""
    import ir_measures
    from ir_measures import nDCG

    from crux_app.models import PassageQrel, RunEntry
    from crux_app.query_arrays import int_columns

    timings: dict[str, float] = {}
    started = time.perf_counter()
    qrels_rows = int_columns(
        PassageQrel.objects.filter(topic__collection__name=COLLECTION, source=LLM),
        ["topic_id", "passage_id", "grade"],
    )
    run_rows = int_columns(
        RunEntry.objects.filter(run__collection__name=COLLECTION),
        ["run_id", "topic_id", "passage_id", "rank"],
    )
    timings["raw read of one judge's qrels and all runs as arrays"] = time.perf_counter() - started
    qrels: dict[str, dict[str, int]] = {}
    for t, p, g in qrels_rows.tolist():
        qrels.setdefault(str(t), {})[str(p)] = g
    runs: dict[int, dict[str, dict[str, float]]] = {}
    for r, t, p, rank in run_rows[run_rows[:, 3] <= k].tolist():
        runs.setdefault(r, {}).setdefault(str(t), {})[str(p)] = float(-rank)
    started = time.perf_counter()
    evaluator = ir_measures.evaluator([nDCG @ k], qrels)
    for run in runs.values():
        list(evaluator.iter_calc(run))
    timings[f"ir_measures nDCG@{k} of every run under one judge"] = time.perf_counter() - started
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--judged", type=int, default=1000, help="judged passages per topic")
    parser.add_argument("--depth", type=int, default=100, help="passages each run ranks")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()

    from bench.scratch_database import setup_django

    setup_django(os.environ["DATABASE_URL"])
    started = time.perf_counter()
    counts = seed(args.runs, args.topics, args.judged, args.depth)
    listing = ", ".join(f"{n:,} {what}" for what, n in counts.items())
    print(f"seeded {listing} in {time.perf_counter() - started:.1f} s")

    from crux_app.models import Collection
    from evaluation.judge_report.export import to_json
    from evaluation.judge_report.method.ranking_agreement import Bootstrap
    from evaluation.judge_report.report import JudgeReportParams, build_report

    collection = Collection.objects.get(name=COLLECTION)
    params = JudgeReportParams(
        judge_a=LLM, judge_b=HUMAN, metric="ndcg", k=args.k, bootstrap=Bootstrap(args.resamples)
    )
    build_report(collection, JudgeReportParams(judge_a=LLM, judge_b=HUMAN, k=args.k))  # warm up
    base = baseline(args.k)
    started = time.perf_counter()
    report = build_report(collection, params)
    built = time.perf_counter() - started
    started = time.perf_counter()
    to_json(report)
    exported = time.perf_counter() - started
    total = built + exported
    for what, seconds in base.items():
        print(f"baseline: {what}: {seconds:.2f} s")
    ranking = report.ranking
    print(
        f"judge report ({args.runs} runs x {args.topics} topics x {args.judged:,} judged "
        f"passages per topic, nDCG@{args.k}, {args.resamples:,} bootstrap resamples): "
        f"build {built:.2f} s + JSON {exported:.2f} s = {total:.2f} s; "
        f"tau {ranking.kendall_tau:.3f} over {ranking.n_topics} topics"
    )
    ir = next(v for w, v in base.items() if w.startswith("ir_measures"))
    print(f"ratio: full report / ir_measures alone = {total / ir:.1f}x")


if __name__ == "__main__":
    main()
