"""Reading the trail: the filters, declared once (the page's form, the command's options and
the API's query parameters are made from them), and the rows every door shows."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, time
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from crux_app.csv_safety import safe_cell
from crux_app.models import AuditEvent
from crux_app.parameters import JobParameters, ParameterError, param

COLUMNS = (
    "id",
    "at",
    "kind",
    "table",
    "row_id",
    "username",
    "origin",
    "context",
    "old",
    "new",
    "detail",
)
TIME_HELP = "ISO date or date-time (2026-11-28 or 2026-11-28T14:00:00Z); blank: no bound"


def parse_time(value: str, name: str, end_of_day: bool = False) -> datetime | None:
    """``value`` as an aware time ("" -> None); a date means its start (or its end)."""
    if not value:
        return None
    moment = parse_datetime(value)
    if moment is None:
        day = parse_date(value) if len(value) == 10 else None
        if day is None:
            raise ParameterError(
                f"{name}: {value!r} is not a date or date-time ({TIME_HELP})", name
            )
        moment = datetime.combine(day, time.max if end_of_day else time.min)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, timezone.get_current_timezone())
    return moment


@dataclass(frozen=True)
class AuditFilter(JobParameters):
    """Which records of one collection to show."""

    command = "audit_log"

    kind: str = param(
        "",
        max_length=60,
        blank_default=True,
        help="a kind (judgment.update, import) or its start (judgment.): blank: every kind",
    )
    user: str = param("", max_length=150, blank_default=True, help="a username; blank: anyone")
    since: str = param("", max_length=40, blank_default=True, help=f"from; {TIME_HELP}")
    until: str = param("", max_length=40, blank_default=True, help=f"up to; {TIME_HELP}")

    def check(self) -> None:
        for name in ("kind", "user", "since", "until"):
            if any(ord(c) < 32 for c in getattr(self, name)):
                raise ParameterError(f"{name} must not hold control characters", name)
        since = parse_time(self.since, "since")
        until = parse_time(self.until, "until", end_of_day=True)
        if since and until and since > until:
            raise ParameterError("since must not be after until", "since")

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> AuditFilter:
        """From a page's or the API's query string (blank values are the defaults)."""
        names = cls.declared().parameters
        return cls.from_params({k: query.get(k) for k in names if query.get(k)})

    def events(self, collection_id: int) -> QuerySet[AuditEvent]:
        """The collection's matching records, newest first."""
        rows = AuditEvent.objects.filter(collection_id=collection_id)
        if self.kind:
            rows = rows.filter(
                Q(kind=self.kind) | Q(kind__startswith=self.kind)
                if self.kind.endswith(".")
                else Q(kind=self.kind)
            )
        if self.user:
            rows = rows.filter(username=self.user)
        since = parse_time(self.since, "since")
        until = parse_time(self.until, "until", end_of_day=True)
        if since:
            rows = rows.filter(at__gte=since)
        if until:
            rows = rows.filter(at__lte=until)
        return rows.order_by("-at", "-id")


def as_row(event: AuditEvent) -> dict[str, Any]:
    """One record as plain data (the API's, the command's and the CSV's)."""
    row = {name: getattr(event, name) for name in COLUMNS}
    row["at"] = event.at.isoformat()
    return row


def label_history(table: str, row_ids: Iterable[int]) -> QuerySet[AuditEvent]:
    """The records of some rows of one table (a label's history), oldest first."""
    return AuditEvent.objects.filter(table=table, row_id__in=list(row_ids)).order_by("at", "id")


def as_csv(events: Iterable[AuditEvent]) -> str:
    """The records as CSV (JSON columns as JSON text)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for event in events:
        row = as_row(event)
        # Spreadsheet-safe cells: a username or a label may start with "=".
        writer.writerow(
            [
                safe_cell(json.dumps(row[c]) if isinstance(row[c], dict | list) else row[c])
                for c in COLUMNS
            ]
        )
    return out.getvalue()
