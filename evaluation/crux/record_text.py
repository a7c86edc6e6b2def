"""The evaluation records as JSON or CSV text (what ``manage.py evaluate`` prints).

JSON: a list with one record per run (keys ``RECORD_KEYS``, then the registered leaderboard
columns, such as Delta-SePer; ``per_topic`` added on request), undefined values as null. CSV
(pandas): the same columns, undefined values empty, ``topics`` as a JSON object in its cell;
per-topic rows follow their run's row with the ``topic`` column filled (and ``oracle`` /
``reason`` columns saying where O came from and why coverage is undefined).
"""

from __future__ import annotations

import json

import pandas as pd

from crux_app.csv_safety import safe_frame
from evaluation.crux.evaluate import RECORD_KEYS, Evaluation

FORMATS = ("json", "csv")
PER_TOPIC_EXTRA = ("oracle", "reason")
REPORT_KEYS = ("system", "judge", "coverage", "missing_judgments", "topics", "threshold")


Extra = dict[str, dict[str, float | None]]  # column key -> run name -> value


def run_records(
    evaluation: Evaluation, per_topic: bool = False, extra: Extra | None = None
) -> list[dict[str, object]]:
    """One record per run; ``extra`` columns follow the CRUX metrics' keys."""
    records = []
    for run in evaluation.runs:
        record = evaluation.record(run)
        record |= {key: values.get(run.name) for key, values in (extra or {}).items()}
        if per_topic:
            record["per_topic"] = evaluation.per_topic(run)
        records.append(record)
    return records


def _csv(rows: list[dict[str, object]], columns: list[str]) -> str:
    frame = pd.DataFrame(rows, columns=columns)
    if "topics" in frame:
        frame["topics"] = [
            json.dumps(v, sort_keys=True) if isinstance(v, dict) else v for v in frame["topics"]
        ]
    return safe_frame(frame).to_csv(index=False, na_rep="")


def render_runs(
    evaluation: Evaluation, fmt: str, per_topic: bool = False, extra: Extra | None = None
) -> str:
    """The run records in ``fmt`` (one of FORMATS)."""
    records = run_records(evaluation, per_topic, extra)
    if fmt == "json":
        return json.dumps(records, indent=2)
    keys = [*RECORD_KEYS, *(extra or {})]
    if not per_topic:
        return _csv(records, keys)
    columns = ["run", "topic", *keys[1:], *PER_TOPIC_EXTRA]
    rows: list[dict[str, object]] = []
    for record in records:
        topics = record.pop("per_topic")
        rows.append(record)
        rows.extend({"run": record["run"], **topic} for topic in topics)
    return _csv(rows, columns)


def render_reports(evaluation: Evaluation, fmt: str) -> str:
    """Report-coverage records (one per system and report judge) in ``fmt``."""
    records = evaluation.report_records()
    if fmt == "json":
        return json.dumps(records, indent=2)
    return _csv(records, list(REPORT_KEYS))
