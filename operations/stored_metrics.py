"""Figures computed from the database at scrape time (a few grouped queries).

Jobs, shards, workers, model calls, imports, annotation submissions, webhook deliveries and
stored rows are written by many processes on many machines (web, every worker, commands), so
their figures are read from the rows they leave rather than counted in one process: any web
process answers a scrape with the same numbers. Counts that only grow (items done, tokens,
model calls, submissions, deliveries) are exposed as gauges of the stored totals; Prometheus'
``rate()``/``increase()`` over them gives throughput, except across deletions of the rows (a
deleted job takes its items and its model calls with it). Imported rows are a true counter:
they are summed from the append-only audit trail.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from django.apps import apps
from django.db import connection
from django.db.models import Count, Q, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from crux_app.audit.events import ARCHIVE_IMPORT, IMPORT
from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.jobs.catalog import CATALOG
from crux_app.models import AuditEvent, Job, JobModelUsage, JobShard, WorkerHeartbeat

from .queues import declared_queues

# Above this many rows (PostgreSQL's estimate), a table's count is the planner's estimate
# (pg_class.reltuples), not a COUNT(*) scan: a scrape every 15 s must stay cheap.
EXACT_COUNT_BELOW = 100_000
# The format label of the rows a collection archive brought (``import_collection``).
ARCHIVE_FORMAT = "collection-archive"


def _queue_of(kind: str) -> str:
    entry = CATALOG.get(kind)
    return entry.queue if entry else "unknown"


def _job_metrics() -> Iterator[Metric]:
    jobs = GaugeMetricFamily(
        "crux_jobs", "Jobs stored, by kind and state", labels=["kind", "state"]
    )
    done = GaugeMetricFamily(
        "crux_job_items_done",
        "Items done by the stored jobs, by kind (rate() of it: items/s)",
        labels=["kind"],
    )
    tokens = GaugeMetricFamily(
        "crux_job_model_tokens",
        "Model tokens the stored jobs spent, by job kind and type (prompt, completion)",
        labels=["kind", "type"],
    )
    rows = (
        Job.objects.values("kind", "state")
        .annotate(
            n=Count("id"), items=Sum("done"), p=Sum("prompt_tokens"), c=Sum("completion_tokens")
        )
        .order_by("kind", "state")
    )
    by_kind: dict[str, list[int]] = {}
    for row in rows:
        jobs.add_metric([row["kind"], row["state"]], row["n"])
        totals = by_kind.setdefault(row["kind"], [0, 0, 0])
        totals[0] += row["items"] or 0
        totals[1] += row["p"] or 0
        totals[2] += row["c"] or 0
    for kind, (items, prompt, completion) in sorted(by_kind.items()):
        done.add_metric([kind], items)
        tokens.add_metric([kind, "prompt"], prompt)
        tokens.add_metric([kind, "completion"], completion)
    yield from (jobs, done, tokens)
    yield from _model_usage_metrics()

    speed = GaugeMetricFamily(
        "crux_job_items_per_second",
        "Throughput of the running jobs, by kind: items done this attempt / seconds running",
        labels=["kind"],
    )
    now = timezone.now()
    running: dict[str, list[float]] = {}
    for kind, done_now, before, since in Job.objects.filter(
        state=Job.State.RUNNING, running_since__isnull=False
    ).values_list("kind", "done", "done_before_attempt", "running_since"):
        totals = running.setdefault(kind, [0.0, 0.0])
        totals[0] += max(0, done_now - before)
        totals[1] += max(1.0, (now - since).total_seconds())
    for kind, (items, seconds) in sorted(running.items()):
        speed.add_metric([kind], items / seconds)
    yield speed

    depth = GaugeMetricFamily(
        "crux_queue_depth", "Jobs waiting for a worker (pending), by queue", labels=["queue"]
    )
    pending = dict.fromkeys(declared_queues(), 0)
    for kind, n in (
        Job.objects.filter(state=Job.State.PENDING)
        .values_list("kind")
        .annotate(n=Count("id"))
        .order_by()
    ):
        pending[_queue_of(kind)] = pending.get(_queue_of(kind), 0) + n
    for queue, n in sorted(pending.items()):
        depth.add_metric([queue], n)
    yield depth


def _model_usage_metrics() -> Iterator[Metric]:
    calls = GaugeMetricFamily(
        "crux_job_model_calls",
        "Model calls the stored jobs made, by job kind and model role (a local model's forward "
        "passes, a served model's requests)",
        labels=["kind", "role"],
    )
    forward = GaugeMetricFamily(
        "crux_job_model_forward_tokens",
        "Token positions the stored jobs' model calls ran, by job kind and model role (padding "
        "and every decoding step included; a served model's prompt + completion tokens)",
        labels=["kind", "role"],
    )
    rows = (
        JobModelUsage.objects.values("job__kind", "role")
        .annotate(calls=Sum("calls"), forward=Sum("forward_tokens"))
        .order_by("job__kind", "role")
    )
    for row in rows:
        calls.add_metric([row["job__kind"], row["role"]], row["calls"] or 0)
        forward.add_metric([row["job__kind"], row["role"]], row["forward"] or 0)
    yield from (calls, forward)


def _import_metrics() -> Iterator[Metric]:
    """Rows imported, by format, from the audit trail's import events: every import (upload,
    API, command, collection archive) leaves one with its rows per kind, in the import's own
    transaction, and the trail is append-only, so the sum only grows: a counter."""
    imported = CounterMetricFamily(
        "crux_import_rows",
        "Rows imported, by format (an archive restored: collection-archive)",
        labels=["format"],
    )
    totals = dict.fromkeys([*IMPORT_FORMATS, ARCHIVE_FORMAT], 0)
    events = AuditEvent.objects.filter(table="", kind__in=[IMPORT, ARCHIVE_IMPORT])
    for kind, format_name, rows in events.values_list("kind", "detail__format", "detail__rows"):
        name = ARCHIVE_FORMAT if kind == ARCHIVE_IMPORT else str(format_name)
        counts = rows.values() if isinstance(rows, dict) else ()
        totals[name] = totals.get(name, 0) + sum(n for n in counts if isinstance(n, int))
    for name, n in sorted(totals.items()):
        imported.add_metric([name], n)
    yield imported


def _shard_metrics() -> Iterator[Metric]:
    shards = GaugeMetricFamily(
        "crux_job_shards", "Shards of unfinished jobs, by state", labels=["state"]
    )
    counts = dict(
        JobShard.objects.filter(state__in=[JobShard.State.PENDING, JobShard.State.RUNNING])
        .values_list("state")
        .annotate(n=Count("id"))
        .order_by()
    )
    for state in (JobShard.State.PENDING, JobShard.State.RUNNING):
        shards.add_metric([state.value], counts.get(state.value, 0))
    yield shards
    taken = GaugeMetricFamily(
        "crux_job_shards_taken_over",
        "Stored shards another worker took over after their worker's heartbeat stopped",
    )
    taken.add_metric([], JobShard.objects.exclude(stalled_worker="").count())
    yield taken


def _worker_metrics() -> Iterator[Metric]:
    age = GaugeMetricFamily(
        "crux_worker_heartbeat_age_seconds",
        "Seconds since each worker's last heartbeat (a stopped worker's row is removed)",
        labels=["worker", "queues"],
    )
    now = timezone.now()
    for hostname, queues, seen in WorkerHeartbeat.objects.values_list(
        "hostname", "queues", "seen_at"
    ):
        age.add_metric([hostname, ",".join(queues)], max(0.0, (now - seen).total_seconds()))
    yield age


def _annotation_metrics() -> Iterator[Metric]:
    try:
        assignment = apps.get_model("annotation", "Assignment")
    except LookupError:
        return
    submitted = GaugeMetricFamily(
        "crux_annotation_submissions",
        "Annotation assignments submitted (all time; rate() of it: submissions/s)",
    )
    recent = timezone.now() - timedelta(hours=1)
    counts = assignment.objects.aggregate(
        total=Count("id", filter=Q(submitted_at__isnull=False)),
        hour=Count("id", filter=Q(submitted_at__gte=recent)),
    )
    submitted.add_metric([], counts["total"])
    yield submitted
    last_hour = GaugeMetricFamily(
        "crux_annotation_submissions_last_hour", "Annotation assignments submitted in the last hour"
    )
    last_hour.add_metric([], counts["hour"])
    yield last_hour


def _webhook_metrics() -> Iterator[Metric]:
    try:
        delivery = apps.get_model("webhooks", "Delivery")
        attempt = apps.get_model("webhooks", "Attempt")
    except LookupError:
        return
    deliveries = GaugeMetricFamily(
        "crux_webhook_deliveries", "Webhook deliveries stored, by state", labels=["state"]
    )
    counts = dict(delivery.objects.values_list("state").annotate(n=Count("id")).order_by())
    for state in sorted({*counts, "pending", "succeeded", "failed"}):
        deliveries.add_metric([state], counts.get(state, 0))
    yield deliveries
    attempts = GaugeMetricFamily(
        "crux_webhook_attempts",
        "Webhook POSTs made, by outcome (ok: a 2xx answer; failed: anything else)",
        labels=["outcome"],
    )
    totals = attempt.objects.aggregate(
        ok=Count("id", filter=Q(status_code__gte=200, status_code__lt=300)),
        all=Count("id"),
    )
    attempts.add_metric(["ok"], totals["ok"])
    attempts.add_metric(["failed"], totals["all"] - totals["ok"])
    yield attempts


def _estimated_rows() -> dict[str, int]:
    """PostgreSQL's row estimate per table (empty on other databases)."""
    if connection.vendor != "postgresql":
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reltuples::bigint FROM pg_class "
            "WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace"
        )
        return dict(cursor.fetchall())


def _stored_row_metrics() -> Iterator[Metric]:
    stored = GaugeMetricFamily(
        "crux_stored_rows",
        "Rows of the shared data model that imports and jobs wrote, by model (an estimate "
        f"above {EXACT_COUNT_BELOW} rows)",
        labels=["model"],
    )
    estimates = _estimated_rows()
    for model in apps.get_app_config("crux_app").get_models():
        estimate = estimates.get(model._meta.db_table, -1)
        count = estimate if estimate >= EXACT_COUNT_BELOW else model._base_manager.count()
        stored.add_metric([model.__name__], count)
    yield stored


class StoredMetricsCollector(Collector):
    """Collects the database's gauges at every scrape."""

    def collect(self) -> Iterator[Metric]:
        yield from _job_metrics()
        yield from _shard_metrics()
        yield from _worker_metrics()
        yield from _annotation_metrics()
        yield from _webhook_metrics()
        yield from _import_metrics()
        yield from _stored_row_metrics()
