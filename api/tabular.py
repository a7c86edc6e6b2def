"""Results as data: JSON by default, CSV with ``?format=csv`` (cells neutralised)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request

from crux_app.csv_safety import safe_row


class CSVRenderer(BaseRenderer):
    """A list of flat dicts as CSV (header: the keys in first-seen order); an error body as a
    one-row CSV of its ``detail``."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type=None, renderer_context=None) -> bytes:
        rows = data if isinstance(data, list) else [{"detail": (data or {}).get("detail", "")}]
        header: dict[str, None] = {}
        for row in rows:
            header.update(dict.fromkeys(row))
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(header), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(safe_row({k: _cell(v) for k, v in row.items()}))
        return out.getvalue().encode("utf-8")


TABULAR_RENDERERS = [JSONRenderer, CSVRenderer]


def wants_csv(request: Request) -> bool:
    return getattr(request.accepted_renderer, "format", "") == "csv"


def number(value: Any) -> Any:
    """A JSON-safe value: NaN and infinities (undefined figures) become None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str):  # a numpy scalar
        return number(value.item())
    return value


def _cell(value: Any) -> Any:
    return "" if value is None else value


def flat_rows(rows: Iterable[Mapping[str, Any]], nested: str) -> list[dict[str, Any]]:
    """Rows whose ``nested`` dict is spread into columns (for CSV)."""
    return [
        {**{k: v for k, v in row.items() if k != nested}, **row.get(nested, {})} for row in rows
    ]
