"""Time the REST API against the pages and commands it mirrors (issue #26's targets).

Usage: .venv/bin/python bench/api.py [--part leaderboard|import|labels|all] [--topics 5000]
       [--run-lines 200000] [--labels 100000] [--repeat 5]

Works in a scratch database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/
crux_bench_api; created afresh) and calls the API through Django's test client with a real
API token, the whole request (authentication, throttling, rendering) included:

- leaderboard: the leaderboard bench's synthetic collection (``--topics`` x 100 passages x 15
  sub-questions, 3 runs; ``bench.evaluate_collection``); the page computed once (cold), then the
  page and ``GET /api/v1/collections/<name>/leaderboard/`` warm from the same cache, median of
  ``--repeat`` (target: API < 100 ms warm);
- import: a TREC run of ``--run-lines`` lines imported by ``manage.py import_run`` and by
  ``POST /api/v1/collections/<name>/imports/`` (the job runs in the request, eagerly, as a
  worker would), rows/s of each (target: API within 10% of the command);
- labels: a ``--labels``-label passage-rating campaign (two annotators over half as many items),
  every label exported by ``GET /api/v1/campaigns/<slug>/labels/`` as CSV and as JSON, streamed
  (time to the first bytes and to the last; target: < 10 s).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_DEBUG", "false")  # no per-query logging, as in production
os.environ.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
warnings.filterwarnings("ignore", "No directory at")

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/crux_bench_api"
PASSAGES_PER_TOPIC = 100


def _timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def _ok(response, what: str):
    if response.status_code >= 300:
        body = b"".join(response) if response.streaming else response.content
        raise SystemExit(f"{what}: status {response.status_code}: {body[:300]!r}")
    return response


def _clients():
    from django.contrib.auth import get_user_model
    from django.test import Client

    from api.tokens import issue_token
    from crux_app.roles import RESEARCHER, add_role

    user, _ = get_user_model().objects.get_or_create(username="bench-researcher")
    add_role(user, RESEARCHER)
    page = Client(HTTP_HOST="localhost")
    page.force_login(user)
    token = issue_token(user, "bench")[1]
    api = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Bearer {token}")
    return page, api


def bench_leaderboard(args) -> None:
    import numpy as np
    from django.conf import settings
    from django.urls import reverse

    from bench import evaluate_collection as bench_db
    from bench.metrics import RELEVANT_ROWS, generate
    from crux_app.models import Collection

    settings.TOKENIZER_MODEL = "whitespace"  # as the metrics bench counts tokens
    if not Collection.objects.filter(name=bench_db.COLLECTION).exists():
        data = generate(args.topics, PASSAGES_PER_TOPIC, 15, seed=0)
        rng = np.random.default_rng(1)
        orders = [data.runs] + [
            rng.permuted(np.tile(np.arange(PASSAGES_PER_TOPIC), (args.topics, 1)), axis=1)
            for _ in range(2)
        ]
        load_s, _ = _timed(
            lambda: bench_db.load(
                data.batch.ratings, data.batch.required, RELEVANT_ROWS, orders, data.passage_tokens
            )
        )
        print(f"loaded {args.topics} topics in {load_s:.1f} s")
    collection = Collection.objects.get(name=bench_db.COLLECTION)
    page, api = _clients()
    page_url = reverse("leaderboard", args=[collection.pk])
    api_url = f"/api/v1/collections/{collection.name}/leaderboard/"
    cold, _ = _timed(lambda: _ok(page.get(page_url), "page"))
    pages = [_timed(lambda: _ok(page.get(page_url), "page"))[0] for _ in range(args.repeat)]
    apis = [_timed(lambda: _ok(api.get(api_url), "api"))[0] for _ in range(args.repeat)]
    csvs = [
        _timed(lambda: _ok(api.get(api_url, {"format": "csv"}), "csv"))[0]
        for _ in range(args.repeat)
    ]
    runs = len(api.get(api_url).json()["runs"])
    print(
        f"leaderboard, {args.topics} topics, {runs} runs: page cold {cold:.2f} s; warm median "
        f"page {statistics.median(pages) * 1000:.0f} ms, API JSON "
        f"{statistics.median(apis) * 1000:.0f} ms, API CSV {statistics.median(csvs) * 1000:.0f} ms"
    )


def _import_collection(name: str, topics: int, per_topic: int):
    from crux_app.dataio.pg_copy import insert_rows
    from crux_app.models import Collection, Passage, Topic

    Collection.objects.filter(name=name).delete()
    collection = Collection.objects.create(name=name)
    Topic.objects.bulk_create(
        Topic(collection=collection, external_id=f"q{t}", request=f"topic {t}")
        for t in range(topics)
    )
    insert_rows(
        Passage,
        ["collection_id", "external_id", "text", "has_text"],
        (
            (collection.pk, f"d{t}-{j}", "text", True)
            for t in range(topics)
            for j in range(per_topic)
        ),
    )
    return collection


def bench_import(args) -> None:
    from django.conf import settings
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the API's import job runs in the request
    settings.UPLOAD_DIR = Path(tempfile.mkdtemp(prefix="crux-bench-api-"))
    per_topic = 1000
    topics = max(1, args.run_lines // per_topic)
    lines = "".join(
        f"q{t} Q0 d{t}-{j} {j + 1} {1000 - j} bench\n"
        for t in range(topics)
        for j in range(per_topic)
    ).encode()
    n = topics * per_topic
    _, api = _clients()
    with tempfile.NamedTemporaryFile(suffix=".run") as run_file:
        run_file.write(lines)
        run_file.flush()
        for attempt in range(2):
            _import_collection("bench-api-import", topics, per_topic)
            command_s, _ = _timed(
                lambda attempt=attempt: call_command(
                    "import_run",
                    "--collection=bench-api-import",
                    f"--name=cmd{attempt}",
                    run_file.name,
                    verbosity=0,
                )
            )
            _import_collection("bench-api-import", topics, per_topic)
            upload = SimpleUploadedFile("bench.run", lines)
            api_s, response = _timed(
                lambda upload=upload, attempt=attempt: api.post(
                    "/api/v1/collections/bench-api-import/imports/",
                    {"format": "run", "run_name": f"api{attempt}", "file": upload},
                )
            )
            job = _ok(response, "import").json()["job"]
            state = api.get(f"/api/v1/jobs/{job['id']}/").json()["state"]
            print(
                f"import of a {n:,}-line run, try {attempt + 1}: command {command_s:.2f} s "
                f"({n / command_s:,.0f} rows/s), API {api_s:.2f} s ({n / api_s:,.0f} rows/s, "
                f"{api_s / command_s:.2f}x the command's time; job {state})"
            )


def bench_labels(args) -> None:
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import Assignment
    from bench.annotate_campaign import build_campaign
    from crux_app.dataio.pg_copy import insert_rows

    campaign = build_campaign(args.labels // 2, overlap=2)
    users = [
        get_user_model().objects.get_or_create(username=f"bench-rater-{i}")[0] for i in range(2)
    ]
    now = timezone.now()
    items = list(campaign.items.order_by("pk").values_list("pk", flat=True))
    Assignment.objects.filter(campaign=campaign).delete()
    insert_rows(
        Assignment,
        [
            "campaign_id", "item_id", "annotator_id", "state", "reserved_at", "reserved_until",
            "answer", "time_spent_ms", "submitted_at", "draft",
        ],
        (
            (
                campaign.pk, item, user.pk, "submitted", now, now,
                json.dumps({"rating": (item + i) % 6, "rationale": "", "rationale_start": None,
                            "rationale_end": None}),
                1500, now, "{}",
            )
            for i, user in enumerate(users)
            for item in items
        ),
    )  # fmt: skip
    _, api = _clients()
    url = f"/api/v1/campaigns/{campaign.slug}/labels/"
    for what, query in (("CSV", {"format": "csv"}), ("JSON", {})):
        started = time.perf_counter()
        response = _ok(api.get(url, query), f"labels {what}")
        # Streamed: the rows are read from the cursor while the body is consumed.
        chunks = iter(response.streaming_content)
        first = next(chunks)
        first_s = time.perf_counter() - started
        size, lines = len(first), first.count(b"\n")
        for chunk in chunks:
            size += len(chunk)
            lines += chunk.count(b"\n")
        total_s = time.perf_counter() - started
        count = lines - 1 if what == "CSV" else None  # the header is no label
        print(
            f"label export {what}, {args.labels:,} labels of {len(users)} annotators, "
            f"streamed: first bytes after {first_s:.2f} s, all {size / 1e6:.0f} MB in "
            f"{total_s:.2f} s (target < 10 s)" + (f", {count:,} rows" if count else "")
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["leaderboard", "import", "labels", "all"], default="all")
    parser.add_argument("--topics", type=int, default=5000)
    parser.add_argument("--run-lines", type=int, default=200_000)
    parser.add_argument("--labels", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    from bench import scratch_database

    scratch_database.setup_django(DEFAULT_URL, fresh=True)
    from django.test.utils import setup_test_environment

    setup_test_environment()
    # The leaderboard first: its loader writes ids of its own into empty tables.
    parts = ["leaderboard", "import", "labels"] if args.part == "all" else [args.part]
    for part in parts:
        {"leaderboard": bench_leaderboard, "import": bench_import, "labels": bench_labels}[part](
            args
        )


if __name__ == "__main__":
    main()
