"""Streamed answers for exports too long to build in memory: rows are written as they come
from the caller's iterator (a server-side cursor), a few hundred per chunk sent, as CSV (cells
neutralised) or as one JSON object whose list is written item by item."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from django.http import StreamingHttpResponse

from api.tabular import number
from crux_app.csv_safety import safe_row

ROWS_PER_CHUNK = 500


def _cell(value: Any) -> Any:
    value = number(value)
    return "" if value is None else value


def csv_chunks(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> Iterator[bytes]:
    """The header, then the rows (only ``columns``, in that order), ``ROWS_PER_CHUNK`` a chunk."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for count, row in enumerate(rows, start=1):
        writer.writerow(safe_row({name: _cell(row.get(name)) for name in columns}))
        if count % ROWS_PER_CHUNK == 0:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8")


def _json_value(value: Any) -> Any:
    return str(value)  # dates and anything else json cannot write


def json_chunks(
    head: Mapping[str, Any], key: str, rows: Iterable[Mapping[str, Any]]
) -> Iterator[bytes]:
    """``{**head, key: [rows...], "count": n}``, written as the rows come."""
    encode = json.JSONEncoder(ensure_ascii=False, default=_json_value, allow_nan=False).encode
    opening = encode(dict(head))[:-1]  # without its closing brace
    separator = ", " if head else ""
    parts = [f"{opening}{separator}{encode(key)}: ["]
    count = 0
    for row in rows:
        parts.append(("," if count else "") + encode({k: number(v) for k, v in row.items()}))
        count += 1
        if count % ROWS_PER_CHUNK == 0:
            yield "".join(parts).encode("utf-8")
            parts = []
    parts.append(f'], "count": {count}}}')
    yield "".join(parts).encode("utf-8")


def streamed_csv(
    rows: Iterable[Mapping[str, Any]], columns: Sequence[str], filename: str
) -> StreamingHttpResponse:
    response = StreamingHttpResponse(
        csv_chunks(rows, columns), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def streamed_json(
    head: Mapping[str, Any], key: str, rows: Iterable[Mapping[str, Any]]
) -> StreamingHttpResponse:
    return StreamingHttpResponse(json_chunks(head, key, rows), content_type="application/json")
