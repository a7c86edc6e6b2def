"""The agreement report as JSON (a dict) and as CSV (one row per figure)."""

from __future__ import annotations

import csv
import io
import json

from crux_app.csv_safety import safe_cell
from evaluation.agreement.machine_agreement import POST_EDITED_DEFINITION, REFERENCE_DEFINITION
from evaluation.agreement.report import AgreementReport
from evaluation.agreement.report_rows import RECORD_KEYS
from evaluation.shared.json_values import plain_json_value

SECTIONS = (
    "inter_annotator",
    "per_annotator",
    "human_vs_llm",
    "post_edited_vs_llm",
    "judge_comparison",
    "report_coverage",
)


def meta(report: AgreementReport) -> dict[str, object]:
    """What was judged, by whom, with which settings."""
    options, boot = report.options, report.options.bootstrap
    return {
        "collection": report.collection.name,
        "collection_id": report.collection.pk,
        "generated_at": report.generated_at.isoformat(timespec="seconds"),
        "tau": options.tau,
        "bootstrap": {"resamples": boot.n_resamples, "seed": boot.seed, "level": boot.level},
        "campaign": {
            "name": report.campaign.name,
            "applied": report.campaign.applied,
            "note": report.campaign.note,
        },
        "judges": [r.as_dict() for r in report.raters],
        "tasks": [t.__dict__ for t in report.tasks],
        "sources": [
            {
                "key": s.key,
                "title": s.title,
                "scale": s.scale.value,
                "machine": s.machine,
                "available": s.available,
                "unavailable": s.unavailable,
            }
            for s in report.sources
        ],
        "notes": list(report.notes),
        "warnings": [w.as_dict() for w in report.warnings],
        "definitions": {
            "human_reference": REFERENCE_DEFINITION,
            "post_edited": POST_EDITED_DEFINITION,
            **{s.key: s.derived_definition for s in report.sources if s.derived_definition},
        },
    }


def to_dict(report: AgreementReport) -> dict[str, object]:
    """The report as plain JSON-ready data; the record lists have the keys of RECORD_KEYS."""
    out: dict[str, object] = {"meta": meta(report)}
    for section in SECTIONS:
        out[section] = [r.as_dict() for r in getattr(report, section)]
    out["coverage_points"] = [p.as_dict() for p in report.coverage_points]
    out["confusion_matrices"] = [c.as_dict() for c in report.confusion]
    out["disagreements"] = [d.as_dict() for d in report.disagreements]
    return out


def to_json(report: AgreementReport, indent: int | None = 2) -> str:
    return json.dumps(to_dict(report), indent=indent, default=plain_json_value, allow_nan=False)


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "; ".join("" if v is None else str(v) for v in value)
    return plain_json_value(value)


def to_csv(report: AgreementReport) -> str:
    """Every figure of every section, one row each, with the section in the first column."""
    rows = [{"section": s, **r.as_dict()} for s in SECTIONS for r in getattr(report, s)]
    extra = sorted({k for row in rows for k in row} - {"section", *RECORD_KEYS})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, ["section", *RECORD_KEYS, *extra], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: safe_cell(_cell(v)) for k, v in row.items()})
    return buffer.getvalue()
