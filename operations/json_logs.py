"""``LOG_FORMAT=json``: one JSON object per line and event, with its request id and job id."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

# LogRecord's own attributes: everything else on a record came from ``extra=`` and is logged.
_RECORD_FIELDS = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """time, level, logger, message, request_id and job_id (where set), the record's extras,
    and the exception's traceback as one string."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key in _RECORD_FIELDS or key.startswith("_") or value is None:
                continue
            line[key] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)
