"""Stored SCAAR analyses as plain records: what ``manage.py scaar`` prints (JSON or CSV)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from crux_app.csv_safety import safe_row
from crux_app.models import Passage
from evaluation.scaar.models import ScaarAnalysis
from evaluation.scaar.page import SystemSummary

CSV_COLUMNS = [
    "output", "system", "topic", "generator", "embedder", "settings", "logprob_source",
    "n_sentences", "n_retrievals", "flare_retrievals", "score_metric", "score_before",
    "score_after", "flare_score_after",
]  # fmt: skip


def _external_ids(analyses: list[ScaarAnalysis]) -> dict[int, str]:
    ids = {
        hit["passage"]
        for a in analyses
        for s in a.detail.get("sentences", [])
        for hit in [*s.get("retrieved", []), *s.get("flare_retrieved", [])]
    }
    return dict(Passage.objects.filter(pk__in=ids).values_list("pk", "external_id"))


def _sentence(sentence: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    words = [
        {
            "word": w,
            "tokens": sentence["n_tokens"][i],
            "probability": sentence["probabilities"][i],
            "r": sentence["contributions"][i],
            "r_normalised": sentence["normalised"][i],
            "threshold": sentence["thresholds"][i],
            "below": sentence["below"][i],
            "flare_below": sentence["flare_below"][i],
        }
        for i, w in enumerate(sentence["words"])
    ]

    def hits(key: str) -> list[dict[str, Any]]:
        return [
            {"passage": names.get(h["passage"], str(h["passage"])), "score": h["score"]}
            for h in sentence.get(key, [])
        ]

    return {
        "text": sentence["text"],
        "triggered": sentence["triggered"],
        "query": sentence["query"],
        "retrieved": hits("retrieved"),
        "flare_triggered": sentence["flare_triggered"],
        "flare_query": sentence["flare_query"],
        "flare_retrieved": hits("flare_retrieved"),
        "words": words,
    }


def answer_record(analysis: ScaarAnalysis, names: dict[int, str]) -> dict[str, Any]:
    return {
        "output": analysis.output.external_id,
        "system": analysis.output.system,
        "topic": analysis.topic.external_id,
        "question": analysis.topic.request,
        "generator": analysis.generator,
        "embedder": analysis.embedder,
        "settings": analysis.params,
        "logprob_source": analysis.logprob_source,
        "n_sentences": analysis.n_sentences,
        "n_retrievals": analysis.n_retrievals,
        "flare_retrievals": analysis.flare_retrievals,
        "score_metric": analysis.score_metric or None,
        "score_before": analysis.score_before,
        "score_after": analysis.score_after,
        "refined_text": analysis.refined_text or None,
        "flare_score_after": analysis.flare_score_after,
        "flare_refined_text": analysis.flare_refined_text or None,
        "sentences": [_sentence(s, names) for s in analysis.detail.get("sentences", [])],
    }


def render_json(analyses: Iterable[ScaarAnalysis], summaries: list[SystemSummary]) -> str:
    rows = list(analyses)
    names = _external_ids(rows)
    report = {
        "answers": [answer_record(a, names) for a in rows],
        "summaries": [asdict(s) for s in summaries],
    }
    return json.dumps(report, indent=2, ensure_ascii=False)


def render_csv(analyses: Iterable[ScaarAnalysis]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for a in analyses:
        record = answer_record(a, {})
        record["settings"] = json.dumps(a.params, sort_keys=True)
        writer.writerow(safe_row({name: record[name] for name in CSV_COLUMNS}))
    return out.getvalue()
