"""Time the full agreement report of a collection with ~100,000 judgments.

Usage: .venv/bin/python bench/agreement.py [--topics 50] [--passages 30] [--resamples 200]
Seeds a scratch database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
crux_bench_ag; created and migrated when missing, re-seeded each run) with 2 LLM judges (two
prompt versions) and 3 annotators: every (sub-question, passage) item rated by both LLM judges
and two of the annotators, every (sub-question, report) item labelled by all five, 1% of LLM
outputs unparsable. Prints the median time of the whole report (target: < 1 s) next to the
baseline measured in the same run, reading the same judgment rows into numpy arrays (the least
any report must do), the exports' times, and the page's: its bytes of HTML and its time
(target: < 100 KB, < 300 ms warm) and one of its plots, each loaded when scrolled to.
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
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/crux_bench_ag")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crux_app.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")  # no per-query logging, as in production
# A throwaway key: the bench serves nothing (production settings refuse to start without one).
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))

COLLECTION = "agreement-bench"
N_SUBQUESTIONS = 15
SYSTEMS = ("oracle", "bm25", "dense")
TARGET_S = 1.0
PAGE_BYTES, PAGE_SECONDS = 100_000, 0.3  # the page's HTML and its warm time (issue #37)


def seed(n_topics: int, n_passages: int) -> int:
    """Create the collection; returns the number of judgments."""
    import numpy as np

    from crux_app.dataio.pg_copy import insert_rows
    from crux_app.models import (
        Collection,
        GeneratedOutput,
        Judge,
        Judgment,
        Passage,
        PassageQrel,
        SubQuestion,
        Topic,
    )

    Collection.objects.filter(name=COLLECTION).delete()
    Judge.objects.filter(name__startswith="bench-ag-").delete()
    rng = np.random.default_rng(0)
    collection = Collection.objects.create(name=COLLECTION)
    topics = Topic.objects.bulk_create(
        Topic(collection=collection, external_id=f"t{i}", request=f"Topic {i}")
        for i in range(n_topics)
    )
    SubQuestion.objects.bulk_create(
        SubQuestion(topic=t, position=q, text=f"Question {q} of {t.external_id}?")
        for t in topics
        for q in range(N_SUBQUESTIONS)
    )
    Passage.objects.bulk_create(
        Passage(collection=collection, external_id=f"{t.external_id}:0#{p}", text=f"Text {p}.")
        for t in topics
        for p in range(n_passages)
    )
    outputs = GeneratedOutput.objects.bulk_create(
        GeneratedOutput(
            collection=collection,
            topic=t,
            external_id=f"{s}_{t.external_id}",
            system=s,
            text=f"Report of {s} on {t.external_id}.",
        )
        for t in topics
        for s in SYSTEMS
    )
    sq = np.array(
        SubQuestion.objects.filter(topic__collection=collection)
        .order_by("topic_id", "position")
        .values_list("pk", flat=True)
    ).reshape(n_topics, N_SUBQUESTIONS)
    passages = np.array(
        Passage.objects.filter(collection=collection).order_by("pk").values_list("pk", flat=True)
    ).reshape(n_topics, n_passages)
    topic_ids = np.array([t.pk for t in topics])
    PassageQrel.objects.bulk_create(
        PassageQrel(topic_id=int(t), passage_id=int(p), grade=3)
        for t, row in zip(topic_ids, passages, strict=True)
        for p in row[:3]
    )
    llms = [
        Judge.objects.create(
            name=f"bench-ag-llm@{v}", kind="llm", model_id="bench", prompt_version=v
        )
        for v in ("v1", "v2")
    ]
    humans = [Judge.objects.create(name=f"bench-ag-h{i}", kind="human") for i in range(3)]

    # Passage items: a latent 0-5 "truth", each judge adds its own noise.
    t_idx, q_idx, p_idx = np.indices((n_topics, N_SUBQUESTIONS, n_passages)).reshape(3, -1)
    truth = rng.integers(0, 6, t_idx.size)
    rows = []

    def add(judge, mask, noise, item, task, base):
        rating = np.clip(base[mask] + rng.integers(-noise, noise + 1, mask.sum()), 0, 5)
        parsed = rng.random(mask.sum()) >= (0.01 if judge.kind == "llm" else 0)
        times = rng.integers(2000, 60000, mask.sum()) if judge.kind == "human" else None
        for i, (t, q, x, r, ok) in enumerate(
            zip(t_idx[mask], q_idx[mask], item[mask], rating, parsed, strict=True)
        ):
            passage_id, output_id = (int(x), None) if task == "passage_rating" else (None, int(x))
            rows.append(
                (
                    judge.pk,
                    int(topic_ids[t]),
                    int(sq[t, q]),
                    passage_id,
                    output_id,
                    task,
                    int(r) if ok else None,
                    "",
                    None if times is None else int(times[i]),
                )
            )

    passage_item = passages[t_idx, p_idx]
    everyone = np.ones(t_idx.size, bool)
    for judge, noise in zip(llms, (1, 2), strict=True):
        add(judge, everyone, noise, passage_item, "passage_rating", truth)
    pair = rng.integers(0, 3, t_idx.size)  # the annotator who does not rate the item
    for i, judge in enumerate(humans):
        add(judge, pair != i, 1, passage_item, "passage_rating", truth)

    # Report items: answered (1) or not, per (report, sub-question).
    t_idx, q_idx, s_idx = np.indices((n_topics, N_SUBQUESTIONS, len(SYSTEMS))).reshape(3, -1)
    output_ids = np.array([o.pk for o in outputs]).reshape(n_topics, len(SYSTEMS))
    report_item = output_ids[t_idx, s_idx]
    answered = (rng.random(t_idx.size) < 0.5).astype(int)
    everyone = np.ones(t_idx.size, bool)
    for judge in [*llms, *humans]:
        flip = rng.random(t_idx.size) < 0.15
        add(
            judge,
            everyone,
            0,
            report_item,
            "report_coverage",
            np.where(flip, 1 - answered, answered),
        )
    columns = [
        "judge_id",
        "topic_id",
        "subquestion_id",
        "passage_id",
        "output_id",
        "task",
        "rating",
        "rationale",
        "time_spent_ms",
    ]
    n = insert_rows(Judgment, columns, rows)
    from django.db import connection

    # Planner statistics, as autovacuum gathers them within a minute of a real import: without
    # them PostgreSQL walks 90,000 sub-question index lookups instead of one hash join.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return n


def raw_read(collection) -> int:
    """Every judgment of the collection as integer arrays (the least any report must read):
    the baseline the report's time is compared with."""
    from crux_app.models import Judgment
    from crux_app.query_arrays import int_columns

    fields = ["judge_id", "topic_id", "subquestion_id", "passage_id", "output_id", "rating"]
    return len(int_columns(Judgment.objects.filter(topic__collection=collection), fields))


def clock(fn) -> tuple[float, float]:
    """Wall and CPU seconds of one call (CPU: this process only, not the database server's)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--passages", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    from bench.scratch_database import setup_django

    setup_django(os.environ["DATABASE_URL"])
    started = time.perf_counter()
    n = seed(args.topics, args.passages)
    print(f"seeded {n:,} judgments in {time.perf_counter() - started:.1f} s")

    from crux_app.models import Collection
    from evaluation.agreement.html_report import render_html
    from evaluation.agreement.method.bootstrap import Bootstrap
    from evaluation.agreement.report import AgreementOptions, build_report
    from evaluation.agreement.report_export import to_csv, to_json

    collection = Collection.objects.get(name=COLLECTION)
    options = AgreementOptions(bootstrap=Bootstrap(args.resamples))
    report = build_report(collection, options)  # warm up (imports, first queries)
    rows = raw_read(collection)
    # Baseline and report alternate, so a busy machine slows both alike.
    read_s, report_s, report_cpu = [], [], []
    for _ in range(args.repeats):
        read_s.append(clock(lambda: raw_read(collection))[0])
        wall, cpu = clock(lambda: build_report(collection, options))
        report_s.append(wall)
        report_cpu.append(cpu)
    read, total = statistics.median(read_s), statistics.median(report_s)
    cpu = statistics.median(report_cpu)
    figures = sum(len(getattr(report, s)) for s in ("inter_annotator", "human_vs_llm"))
    print(
        f"{n:,} judgments, {args.resamples} bootstrap resamples: {figures} inter-annotator and "
        f"human-vs-LLM figures, {len(report.report_coverage)} report-level figures; median of "
        f"{args.repeats} runs"
    )
    print(f"{'baseline: raw read of the ' + f'{rows:,} judgment rows':<44} {read:6.3f} s")
    print(f"{'full report (build_report)':<44} {total:6.3f} s  (CPU {cpu:.3f} s)")
    for name, fn in (("JSON", to_json), ("CSV", to_csv), ("HTML (self-contained)", render_html)):
        print(f"{'  + ' + name:<44} {clock(lambda fn=fn: fn(report))[0]:6.3f} s")
    # CPU is this process's time alone: on a machine busy with other work the wall time is
    # several times the CPU time (the load says how busy it was).
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average (1, 5, 15 min) {load} on {os.cpu_count()} cores")
    verdict = "OK" if total < TARGET_S else "TOO SLOW"
    print(
        f"full report: {total:.2f} s = {total / read:.1f}x the raw read "
        f"(target < {TARGET_S:g} s): {verdict}"
    )
    page_figures(collection, args.resamples, args.repeats)


def page_figures(collection, resamples: int, repeats: int) -> None:
    """The agreement page, whole request through the test client: cold (its report computed at
    a new data version: the baseline) against warm (the report cached), and a later page of
    disagreements (cached report, other rows)."""
    from django.contrib.auth import get_user_model
    from django.core.cache import caches
    from django.test import Client
    from django.urls import reverse

    from crux_app import data_version
    from crux_app.roles import RESEARCHER, add_role

    user, _ = get_user_model().objects.get_or_create(username="bench-researcher")
    add_role(user, RESEARCHER)
    client = Client(HTTP_HOST="localhost")  # an allowed host under the production settings
    client.force_login(user)
    url = reverse("agreement", args=[collection.pk]) + f"?resamples={resamples}"

    sizes: dict[str, int] = {}

    def get(target: str) -> float:
        started = time.perf_counter()
        response = client.get(target)
        if response.status_code != 200:
            raise SystemExit(f"GET {target}: status {response.status_code}")
        sizes[target] = len(response.content)
        return time.perf_counter() - started

    cold, warm, paged, plots = [], [], [], []
    for _ in range(repeats):
        data_version.bump(collection.pk)
        cold.append(get(url))
        warm.append(get(url))
        paged.append(get(url + "&d-page=3&d-gap=2"))
        # The plots the page loads as they are scrolled to, each a request of its own.
        plots.append(median([get(slot) for slot in plot_slots(client, url)]))
    backend = type(caches["default"]).__name__
    print(f"agreement page, whole request (cache: {backend}), median of {repeats}:")
    print(f"{'  cold: report computed (baseline)':<44} {statistics.median(cold):6.3f} s")
    print(f"{'  warm: report cached':<44} {statistics.median(warm):6.3f} s")
    print(f"{'  warm, disagreements page 3, |gap| >= 2':<44} {statistics.median(paged):6.3f} s")
    n_plots = len(plot_slots(client, url))
    print(f"{f'  one of its {n_plots} plots, loaded when scrolled to':<44} {median(plots):6.3f} s")
    size, warm_s = sizes[url], statistics.median(warm)
    verdict = "OK" if size < PAGE_BYTES and warm_s < PAGE_SECONDS else "TOO BIG OR SLOW"
    print(
        f"agreement page: {size:,} bytes of HTML, {warm_s * 1000:.0f} ms warm "
        f"(target < {PAGE_BYTES // 1000} KB and < {PAGE_SECONDS * 1000:.0f} ms): {verdict}"
    )


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def plot_slots(client, url: str) -> list[str]:
    """The URLs of the plots the page asks for when each is scrolled to."""
    import re
    from html import unescape

    html = client.get(url).content.decode()
    return [unescape(u) for u in re.findall(r'class="plot-slot" hx-get="([^"]+)"', html)]


if __name__ == "__main__":
    main()
