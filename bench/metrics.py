"""Benchmark of the CRUX metric modules on seeded synthetic ratings.

Run from the repository root:  .venv/bin/python -m bench.metrics  [--topics 5000 ...]
(--evaluate-topics N loads only N topics for the evaluate command; --skip-methods times only it)

Default data: 5,000 topics, each with 100 retrieved (judged) passages x 15 sub-questions.
Rows 0..39 of a topic are its relevant (oracle candidate) passages, rated higher; the required
subset is computed from them by the greedy, and A from the required passages. The run is the
100 passages in a random order; about 20% of the questions are unanswerable and 0.2% of
the ratings are unjudged.

It times our alpha-nDCG@20 against ir_measures' alpha_nDCG@20 (pyndeval) on the same data and
checks they agree, then times answerable set + coverage + density + required subset over all
topics, and finally times the whole ``manage.py evaluate`` command on the same data loaded into a
scratch database (``bench_evaluate_command``; DATABASE_URL, default crux_bench_ev).
"""

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ir_measures
import numpy as np

from evaluation.crux.method.alpha_ndcg import alpha_ndcg
from evaluation.crux.method.coverage import AnswerableSet, answerable_set, context_coverage
from evaluation.crux.method.crux_ratings import RatingsBatch
from evaluation.crux.method.density import density
from evaluation.crux.method.required_subset import select_required

TAU = 3.0
RELEVANT_ROWS = 40
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BenchData:
    batch: RatingsBatch  # required = greedy required subset of the relevant rows
    runs: np.ndarray  # (T, P) row indices in rank order
    passage_tokens: np.ndarray  # (T, P) token counts


def generate(topics: int, passages: int, questions: int, seed: int) -> BenchData:
    """Seeded synthetic ratings, runs and token counts."""
    rng = np.random.default_rng(seed)
    shape = (topics, passages, questions)
    relevant = np.arange(passages) < min(RELEVANT_ROWS, passages)
    # Relevant passages answer a few questions well; distractors mostly rate 0-2.
    high = rng.choice(6, size=shape, p=[0.6, 0.1, 0.1, 0.08, 0.06, 0.06])
    low = rng.choice(6, size=shape, p=[0.7, 0.15, 0.1, 0.03, 0.01, 0.01])
    ratings = np.where(relevant[None, :, None], high, low).astype(np.float64)
    # About 20% of the questions are "hallucinated": no relevant passage answers them.
    hallucinated = rng.random((topics, 1, questions)) < 0.2
    ratings = np.where(hallucinated & relevant[None, :, None], np.minimum(ratings, 2), ratings)
    ratings[rng.random(shape) < 0.002] = np.nan
    passage_valid = np.ones((topics, passages), bool)
    question_valid = np.ones((topics, questions), bool)
    candidates = passage_valid & relevant[None, :]
    subset = select_required(ratings, candidates, question_valid, TAU)
    batch = RatingsBatch(ratings, passage_valid, question_valid, subset.selection_step >= 0)
    runs = rng.permuted(np.tile(np.arange(passages), (topics, 1)), axis=1)
    tokens = rng.integers(40, 200, size=(topics, passages))
    return BenchData(batch, runs, tokens)


def _timed(fn: Callable[[], object]) -> tuple[object, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def _best_of(times: int, fn: Callable[[], object]) -> tuple[object, float]:
    """The result and the shortest of ``times`` timings: on a shared machine the least
    disturbed run is the closest to the code's own cost."""
    runs = [_timed(fn) for _ in range(times)]
    return runs[0][0], min(seconds for _, seconds in runs)


def _ir_measures_inputs(data: BenchData, answerable: AnswerableSet) -> tuple[list, list]:
    """Diversity qrels (one line per relevant (passage, answerable question)) and the run.

    Non-relevant pairs are left out: ndeval treats them exactly like absent lines.
    """
    with np.errstate(invalid="ignore"):
        relevant = (data.batch.ratings >= TAU) & answerable.mask[:, None, :]
    qrels = [
        ir_measures.GenericQrel(f"t{t}", f"d{p:05d}", 1, str(q))
        for t, p, q in np.argwhere(relevant)
    ]
    n = data.runs.shape[1]
    run = [
        ir_measures.ScoredDoc(f"t{t}", f"d{p:05d}", float(n - rank))
        for t in range(data.runs.shape[0])
        for rank, p in enumerate(data.runs[t])
    ]
    return qrels, run


def bench_alpha_ndcg(data: BenchData, k: int = 20) -> list[str]:
    answerable = answerable_set(data.batch, TAU)
    deep = data.runs.shape[1]
    # k and the full depth timed in turn, best of 5 each: a load that comes and goes on a
    # shared machine then disturbs both alike, and their ratio stays the code's.
    ours_s = deep_s = float("inf")
    for _ in range(5):
        ours, seconds = _timed(lambda: alpha_ndcg(data.batch, data.runs, answerable, k, TAU))
        ours_s = min(ours_s, seconds)
        _, seconds = _timed(lambda: alpha_ndcg(data.batch, data.runs, answerable, deep, TAU))
        deep_s = min(deep_s, seconds)
    (qrels, run), convert_s = _timed(lambda: _ir_measures_inputs(data, answerable))
    measure = ir_measures.alpha_nDCG @ k

    def pyndeval() -> dict[str, float]:
        return {m.query_id: m.value for m in ir_measures.pyndeval.iter_calc([measure], qrels, run)}

    theirs, theirs_s = _best_of(3, pyndeval)
    defined = np.flatnonzero(answerable.size > 0)
    diff = max(abs(ours.value[t] - theirs[f"t{t}"]) for t in defined)
    return [
        f"alpha-nDCG@{k}, {data.runs.shape[0]} topics x {data.runs.shape[1]} ranked passages",
        f"  ours (numpy), best of 5      {ours_s:8.3f} s",
        f"  ir_measures/pyndeval, best of 3 {theirs_s:5.3f} s"
        f"  (+ {convert_s:.3f} s building its {len(qrels):,} qrels and {len(run):,} run lines)",
        f"  ratio pyndeval / ours        {theirs_s / ours_s:8.1f} x",
        f"  {f'ours at k = {deep} (any k)':<29}{deep_s:8.3f} s"
        f"  ({deep_s / ours_s:.1f}x the time of k = {k} for {deep / k:.0f}x the depth)",
        f"  agreement: max |diff| = {diff:.2e} over {len(defined)} topics with answerable "
        f"questions ({'OK' if diff <= 1e-6 else 'MISMATCH'})",
    ]


def bench_crux_metrics(data: BenchData, k: int = 10) -> list[str]:
    batch = data.batch
    topics = batch.n_topics
    answerable, a_s = _timed(lambda: answerable_set(batch, TAU))
    contexts = data.runs[:, :k]
    coverage, c_s = _timed(lambda: context_coverage(batch, contexts, answerable, TAU))
    context_tokens = np.take_along_axis(data.passage_tokens, contexts, axis=1).sum(axis=1)
    oracle_tokens = np.where(batch.required, data.passage_tokens, 0).sum(axis=1)
    dens, d_s = _timed(lambda: density(coverage, context_tokens, oracle_tokens))
    relevant = batch.passage_valid & (np.arange(batch.ratings.shape[1]) < RELEVANT_ROWS)
    subset, r_s = _timed(
        lambda: select_required(batch.ratings, relevant, batch.question_valid, TAU)
    )
    total = a_s + c_s + d_s + r_s
    required_per_topic = (subset.selection_step >= 0).sum(axis=1)
    return [
        f"CRUX metrics, {topics} topics (coverage and density of the top {k})",
        f"  answerable set               {a_s:8.3f} s  (mean |A| {answerable.size.mean():.1f})",
        f"  context coverage@{k:<3}         {c_s:8.3f} s  (mean {np.nanmean(coverage.value):.3f},"
        f" {int(np.isnan(coverage.value).sum())} undefined: unjudged ratings)",
        f"  density                      {d_s:8.3f} s  (mean normalised "
        f"{np.nanmean(dens.normalised):.3f})",
        f"  required subset + grades     {r_s:8.3f} s  (mean {required_per_topic.mean():.1f}"
        f" required of {RELEVANT_ROWS} relevant)",
        f"  total                        {total:8.3f} s",
    ]


def _copy_judgments_s() -> tuple[float, int]:
    """Seconds to read the judgment rows ``evaluate`` reads (the judge's passage ratings of the
    collection: topic, sub-question, passage, rating) with COPY in binary, raw bytes only: the
    cheapest way PostgreSQL hands rows to a client, the baseline of the evaluate figure."""
    from django.db import connection

    from bench import evaluate_collection as bench_db
    from crux_app.models import Judgment

    rows = Judgment.objects.filter(
        judge__name=bench_db.JUDGE,
        topic__collection__name=bench_db.COLLECTION,
        task=Judgment.Task.PASSAGE_RATING,
        passage__isnull=False,
    ).values_list("topic_id", "subquestion_id", "passage_id", "rating")
    sql, params = rows.query.sql_with_params()
    start = time.perf_counter()
    size = 0
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
            chunks = [bytes(chunk) for chunk in copy]
        size = sum(len(c) for c in chunks)
    return time.perf_counter() - start, size


def _evaluate_child(k: int, tokenizer: str) -> dict[str, object]:
    """Run ``manage.py evaluate`` in a fresh process (``--evaluate-child``): its wall time,
    its own peak RSS and its output."""
    import json
    import subprocess
    import sys

    command = [sys.executable, "-m", "bench.metrics", "--evaluate-child", str(k), tokenizer]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout)


def _peak_rss_mb() -> float:
    """This process's peak resident memory since it started: VmHWM of /proc (getrusage's
    ru_maxrss would also count the parent's pages, which a forked child inherits)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    import resource  # no /proc: the kernel's own figure, an upper bound here

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def evaluate_child_main(k: int, tokenizer: str) -> None:
    """In the child: Django on the scratch database, one timed ``evaluate``, one JSON line."""
    import io
    import json

    from bench import evaluate_collection as bench_db
    from bench import scratch_database

    scratch_database.setup_django(bench_db.DEFAULT_URL, migrate=False)
    seconds, out = bench_db.time_evaluate(k, tokenizer)
    peak_mb = _peak_rss_mb()
    stream = io.StringIO()
    json.dump({"seconds": seconds, "peak_rss_mb": peak_mb, "output": out}, stream)
    print(stream.getvalue())


def bench_evaluate_command(
    data: BenchData, topics: int | None = None, runs: int = 3, k: int = 10
) -> list[str]:
    """Wall time of the whole ``manage.py evaluate`` on the data loaded into a scratch database,
    against a COPY of the judgment rows it reads, in the same run.

    DATABASE_URL names it (default postgres://postgres@127.0.0.1:5432/crux_bench_ev); it is
    dropped and created afresh. ``topics`` (default: all) loads only the first ones; ``runs``
    rankings are the data's run plus seeded permutations. Each evaluate runs in a process of
    its own (its peak RSS is its own): the first counts the context and oracle passages'
    tokens (whitespace tokenizer) and caches them; the next two read the cache. COPY runs
    before and between them; the ratio is the better cached evaluate over the better COPY.
    """
    import json

    from bench import evaluate_collection as bench_db

    n = data.batch.n_topics if topics is None else min(topics, data.batch.n_topics)
    batch = data.batch
    rng = np.random.default_rng(1)
    orders = [data.runs[:n]] + [
        rng.permuted(np.tile(np.arange(data.runs.shape[1]), (n, 1)), axis=1)
        for _ in range(runs - 1)
    ]
    bench_db.setup_django()
    counts, load_s = _timed(
        lambda: bench_db.load(
            batch.ratings[:n], batch.required[:n], RELEVANT_ROWS, orders, data.passage_tokens[:n]
        )
    )
    first = _evaluate_child(k, "whitespace")
    copies, cached = [], []
    for _ in range(2):
        copies.append(_copy_judgments_s())
        cached.append(_evaluate_child(k, "whitespace"))
    copy_s = min(c[0] for c in copies)
    evaluate_s = min(c["seconds"] for c in cached)
    peak_mb = max(c["peak_rss_mb"] for c in cached)
    records = json.loads(cached[-1]["output"])
    size = ", ".join(f"{v:,} {name}" for name, v in counts.items())
    ratio = evaluate_s / copy_s
    verdict = "OK" if ratio <= 2 and evaluate_s < 5 and peak_mb < 1024 else "over target"
    lines = [
        f"evaluate command, {n} topics x {runs} runs at k = {k}"
        + ("" if n == data.batch.n_topics else f" (of {data.batch.n_topics} generated)"),
        f"  loaded into {os.environ['DATABASE_URL'].rsplit('/', 1)[-1]} with COPY "
        f"{load_s:8.1f} s  ({size})",
        f"  evaluate, first (counts tokens) {first['seconds']:8.2f} s",
        f"  COPY of its {counts['judgments']:,} judgment rows (baseline) "
        + ", ".join(f"{c[0]:.2f}" for c in copies)
        + f" s  ({copies[0][1] / 2**20:,.0f} MB binary)",
        "  evaluate, cached               "
        + ", ".join(f"{c['seconds']:.2f}" for c in cached)
        + f" s  (peak RSS of its process {peak_mb:,.0f} MB)",
        f"  evaluate / COPY (best of each)  {ratio:8.2f} x  "
        f"(target <= 2x and < 5 s, peak RSS < 1 GB: {verdict})",
        f"  mean coverage@{k} per run: "
        + ", ".join(
            f"{r['run']} {r['coverage']:.3f}" if r["coverage"] is not None else f"{r['run']} -"
            for r in records
        ),
    ]
    if any(c["output"] != first["output"] for c in cached):
        lines.append("  MISMATCH: the cached evaluation printed other numbers")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--passages", type=int, default=100)
    parser.add_argument("--questions", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--evaluate-topics", type=int, help="topics loaded for the evaluate command (default all)"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs loaded for the evaluate command")
    parser.add_argument(
        "--evaluate-child",
        nargs=2,
        metavar=("K", "TOKENIZER"),
        help="internal: time one evaluate on the scratch database and print JSON",
    )
    parser.add_argument(
        "--skip-methods", action="store_true", help="only the evaluate command's figures"
    )
    args = parser.parse_args(argv)
    if args.evaluate_child:
        evaluate_child_main(int(args.evaluate_child[0]), args.evaluate_child[1])
        return
    data, gen_s = _timed(lambda: generate(args.topics, args.passages, args.questions, args.seed))
    print(
        f"data: {args.topics} topics x {args.passages} passages x {args.questions} questions "
        f"(seed {args.seed}), generated in {gen_s:.2f} s"
    )
    for bench in () if args.skip_methods else (bench_alpha_ndcg, bench_crux_metrics):
        print("\n".join(bench(data)))
    print("\n".join(bench_evaluate_command(data, args.evaluate_topics, args.runs)))


if __name__ == "__main__":
    main()
