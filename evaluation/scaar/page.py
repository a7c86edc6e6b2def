"""What the SCAAR pages show, built from stored ``ScaarAnalysis`` rows only."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from crux_app.models import Collection, Passage
from evaluation.scaar.method.efficiency import retrieval_efficiency
from evaluation.scaar.models import ScaarAnalysis


@dataclass(frozen=True)
class SystemSummary:
    """N_R, FLARE's N_R and S_eff of one system's analysed answers under one setting."""

    system: str
    settings: str
    n_answers: int
    mean_retrievals: float
    mean_flare_retrievals: float
    n_scored: int
    mean_delta: float | None
    s_eff: float | None
    flare_mean_delta: float | None = None
    flare_s_eff: float | None = None


@dataclass(frozen=True)
class WordCell:
    text: str
    probability: float
    contribution: float
    normalised: float
    threshold: float
    below: bool
    flare_below: bool
    in_query: bool
    shade: float  # r' / the sentence's largest r', for the heatmap's colour


@dataclass(frozen=True)
class RetrievedPassage:
    external_id: str
    text: str
    score: float


@dataclass
class SentenceView:
    index: int
    text: str
    words: list[WordCell]
    triggered: bool
    query: str
    flare_triggered: bool
    flare_query: str
    retrieved: list[RetrievedPassage]
    flare_retrieved: list[RetrievedPassage]
    figure: dict[str, Any] = field(default_factory=dict)


def settings_label(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def collection_summaries(collection: Collection) -> list[SystemSummary]:
    """One summary per (system, settings) over the collection's stored analyses."""
    groups: dict[tuple[str, str], list[ScaarAnalysis]] = {}
    rows = ScaarAnalysis.objects.filter(collection=collection).select_related("output")
    for row in rows.order_by("output__system", "pk"):
        groups.setdefault((row.output.system, settings_label(row.params)), []).append(row)
    summaries = []
    for (system, label), members in sorted(groups.items()):
        scored = [m for m in members if m.score_delta is not None]
        deltas = [m.score_delta for m in scored]
        flare = [m for m in members if m.flare_score_delta is not None]
        flare_deltas = [m.flare_score_delta for m in flare]
        summaries.append(
            SystemSummary(
                system=system,
                settings=label,
                n_answers=len(members),
                mean_retrievals=sum(m.n_retrievals for m in members) / len(members),
                mean_flare_retrievals=sum(m.flare_retrievals for m in members) / len(members),
                n_scored=len(scored),
                mean_delta=sum(deltas) / len(deltas) if deltas else None,
                s_eff=retrieval_efficiency(deltas, [m.n_retrievals for m in scored]),
                flare_mean_delta=sum(flare_deltas) / len(flare_deltas) if flare_deltas else None,
                flare_s_eff=retrieval_efficiency(flare_deltas, [m.flare_retrievals for m in flare]),
            )
        )
    return summaries


def _passages(analysis: ScaarAnalysis) -> dict[int, Passage]:
    ids = {
        hit["passage"]
        for s in analysis.detail.get("sentences", [])
        for hit in [*s.get("retrieved", []), *s.get("flare_retrieved", [])]
    }
    return Passage.objects.in_bulk(ids)


def _retrieved(hits: list[dict], passages: dict[int, Passage]) -> list[RetrievedPassage]:
    return [
        RetrievedPassage(
            passages[h["passage"]].external_id, passages[h["passage"]].text, h["score"]
        )
        for h in hits
        if h["passage"] in passages
    ]


def probability_figure(sentence: dict[str, Any], theta0: float) -> dict[str, Any]:
    """Plotly spec: each word's probability (bars) against its SCAAR threshold and theta_0."""
    labels = [f"{i + 1}. {w}" for i, w in enumerate(sentence["words"])]
    colours = ["#b42318" if low else "#1a7f37" for low in sentence["below"]]
    return {
        "data": [
            {
                "type": "bar",
                "name": "word probability",
                "x": labels,
                "y": sentence["probabilities"],
                "marker": {"color": colours},
            },
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "SCAAR threshold",
                "x": labels,
                "y": sentence["thresholds"],
                "line": {"color": "#1f4e99"},
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": "FLARE threshold (theta_0)",
                "x": labels,
                "y": [theta0] * len(labels),
                "line": {"color": "#888", "dash": "dash"},
            },
        ],  # fmt: skip
        "layout": {
            "height": 280,
            "margin": {"l": 50, "r": 10, "t": 10, "b": 90},
            "yaxis": {"title": {"text": "probability"}, "rangemode": "tozero"},
            "legend": {"orientation": "h", "y": 1.15},
        },
    }


def sentence_views(analysis: ScaarAnalysis) -> list[SentenceView]:
    passages = _passages(analysis)
    theta0 = analysis.detail["settings"]["theta0"]
    views = []
    for index, s in enumerate(analysis.detail.get("sentences", [])):
        top = max(s["normalised"], default=0.0) or 1.0
        kept = set(s["query_words"])
        cells = [
            WordCell(
                text=w,
                probability=s["probabilities"][i],
                contribution=s["contributions"][i],
                normalised=s["normalised"][i],
                threshold=s["thresholds"][i],
                below=s["below"][i],
                flare_below=s["flare_below"][i],
                in_query=i in kept,
                shade=round(max(0.0, s["normalised"][i]) / top, 3),
            )
            for i, w in enumerate(s["words"])
        ]
        views.append(
            SentenceView(
                index=index,
                text=s["text"],
                words=cells,
                triggered=s["triggered"],
                query=s["query"],
                flare_triggered=s["flare_triggered"],
                flare_query=s["flare_query"],
                retrieved=_retrieved(s.get("retrieved", []), passages),
                flare_retrieved=_retrieved(s.get("flare_retrieved", []), passages),
                figure=probability_figure(s, theta0),
            )
        )
    return views
