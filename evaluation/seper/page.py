"""What the per-topic SePer page shows, built from a topic's stored ``SeperScore`` rows: the
topic's question and, for a long-form topic, each sub-question scored against its references."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crux_app.models import SubQuestion, Topic
from evaluation.seper.decisions_store import response_decision
from evaluation.seper.judge_warnings import models_name, no_gain_warnings
from evaluation.seper.models import SeperScore, equivalence_key
from evaluation.shared.degenerate import JudgeWarning


@dataclass(frozen=True)
class ScoreRow:
    label: str
    kind: str
    seper_s: float
    seper_h: float
    delta_s: float | None
    delta_h: float | None


@dataclass(frozen=True)
class ResponseView:
    index: int  # position in the stored detail, which the per-response form names
    text: str
    weight: float
    machine: bool  # the kernel's decision on this response
    judged: bool | None  # the viewer's stored answer, if any


@dataclass(frozen=True)
class ClusterView:
    responses: list[str]
    mass: float
    matches_gold: bool
    matched_golds: list[str]
    index: int  # position in the stored detail, which the equivalence form names
    judged: bool | None  # the viewer's stored "same meaning as a gold answer?", if any
    members: list[ResponseView] = field(default_factory=list)  # its responses, in order


@dataclass(frozen=True)
class ContextView:
    """One context's sampled responses grouped into clusters, heaviest first; each response
    is listed once, under its cluster (``unclustered``: any a stored row left outside)."""

    label: str
    prompt: str
    seper_h: float
    score_id: int
    clusters: list[ClusterView]
    responses: list[ResponseView]
    unclustered: list[ResponseView] = field(default_factory=list)


@dataclass(frozen=True)
class SubQuestionSeper:
    """A long-form sub-question scored against its reference answers."""

    subquestion: SubQuestion
    references: list[str]
    rows: list[ScoreRow]
    baseline: ContextView | None
    with_run: ContextView | None


@dataclass(frozen=True)
class SeperPage:
    topic: Topic
    settings: dict[str, Any]  # generator, nli and sampling params of the rows shown
    rows: list[ScoreRow]
    baseline: ContextView | None
    with_run: ContextView | None
    delta_figure: dict[str, Any] | None
    subquestions: list[SubQuestionSeper]
    warnings: list[JudgeWarning] = field(default_factory=list)  # every Delta <= 0


def context_label(row: SeperScore) -> str:
    if row.context_kind == SeperScore.ContextKind.PASSAGE:
        return f"Passage {row.passage.external_id}"
    if row.context_kind == SeperScore.ContextKind.RUN:
        return f"{row.run.name} top-{row.k}"
    return row.get_context_kind_display()


def context_view(
    row: SeperScore, golds: Sequence[str], answers: Mapping[str, bool] | None = None
) -> ContextView:
    detail = row.detail
    texts = [r["text"] for r in detail.get("responses", [])]
    answers = answers or {}

    def judged(text: str) -> bool | None:
        return answers.get(equivalence_key(row.topic_id, text, row.subquestion_id))

    weights = detail.get("weights", [])
    responses = [
        ResponseView(
            index=i,
            text=text,
            weight=weights[i] if i < len(weights) else 0.0,
            machine=response_decision(row, i)[0],
            judged=judged(text),
        )
        for i, text in enumerate(texts)
    ]
    clusters = [
        ClusterView(
            responses=[texts[i] for i in c["members"]],
            mass=c["mass"],
            matches_gold=c["matches_gold"],
            matched_golds=[golds[j] for j in c["matched_golds"] if j < len(golds)],
            index=index,
            judged=judged(texts[c["members"][0]]) if c["members"] else None,
            members=[responses[i] for i in c["members"] if i < len(responses)],
        )
        for index, c in enumerate(detail.get("clusters", []))
    ]
    clusters.sort(key=lambda c: -c.mass)
    placed = {r.index for c in clusters for r in c.members}
    unclustered = [r for r in responses if r.index not in placed]
    label = context_label(row)
    return ContextView(
        label, detail.get("prompt", ""), row.seper_h, row.pk, clusters, responses, unclustered
    )


# Beside the zero line, what its two sides mean (the page's caption says it in full).
SIGN_NOTES = (("↑ helps", 14), ("↓ misleads", -14))


def delta_figure(passages: Sequence[SeperScore]) -> dict[str, Any] | None:
    """Grouped bars of Delta-SePer_S and _H per passage; the y axis shows negatives below 0,
    and the zero line says which side helps."""
    if not passages:
        return None
    names = [p.passage.external_id for p in passages]
    return {
        "data": [
            {"type": "bar", "name": "ΔSePer_S", "x": names, "y": [p.delta_s for p in passages]},
            {"type": "bar", "name": "ΔSePer_H", "x": names, "y": [p.delta_h for p in passages]},
        ],
        "layout": {
            "barmode": "group",
            "height": 320,
            "margin": {"t": 40, "b": 80, "r": 90},
            # The legend in a row above the plot, at the left: the right margin is the sign
            # notes' (plotly's default legend sits there and a note at the zero line ran
            # into it whenever the zero line was near the top).
            "legend": {
                "orientation": "h",
                "x": 0,
                "xanchor": "left",
                "y": 1.02,
                "yanchor": "bottom",
            },
            "yaxis": {
                "title": {"text": "Delta-SePer (> 0: helps)"},
                "zeroline": True,
                "zerolinewidth": 2,
            },
            "xaxis": {"title": {"text": "passage"}, "type": "category"},
            "annotations": [
                {
                    "text": text,
                    "xref": "paper",
                    "x": 1.01,
                    "xanchor": "left",
                    "yref": "y",
                    "y": 0,
                    "yshift": shift,
                    "showarrow": False,
                    "font": {"size": 11, "color": "#5b6673"},
                }
                for text, shift in SIGN_NOTES
            ],
        },
    }


def _views(
    shown: Sequence[SeperScore], golds: Sequence[str], answers: Mapping[str, bool] | None
) -> tuple[list[ScoreRow], ContextView | None, ContextView | None, dict[str, list[SeperScore]]]:
    by_kind: dict[str, list[SeperScore]] = {}
    for row in shown:
        by_kind.setdefault(row.context_kind, []).append(row)
    baseline = by_kind.get(SeperScore.ContextKind.NONE, [None])[0]
    run_rows = by_kind.get(SeperScore.ContextKind.RUN, [])
    rows = [
        ScoreRow(context_label(r), r.context_kind, r.seper_s, r.seper_h, r.delta_s, r.delta_h)
        for r in shown
    ]
    return (
        rows,
        context_view(baseline, golds, answers) if baseline else None,
        context_view(run_rows[-1], golds, answers) if run_rows else None,
        by_kind,
    )


def seper_page(topic: Topic, answers: Mapping[str, bool] | None = None) -> SeperPage:
    """The rows of the topic's latest SePer settings (generator, NLI model, sampling params);
    ``answers`` are the viewer's equivalence labels by key, shown beside the clusters."""
    rows = SeperScore.objects.filter(topic=topic).select_related("passage", "run", "subquestion")
    latest = rows.order_by("-created_at", "-pk").first()
    if latest is None:
        return SeperPage(topic, {}, [], None, None, None, [])
    same = rows.filter(generator=latest.generator, nli=latest.nli, params=latest.params)
    shown = list(same.filter(subquestion__isnull=True).order_by("pk"))
    golds = [str(g) for g in topic.gold_answers]
    table, baseline, with_run, by_kind = _views(shown, golds, answers)
    per_question: dict[int, list[SeperScore]] = {}
    for row in same.filter(subquestion__isnull=False).order_by("subquestion__position", "pk"):
        per_question.setdefault(row.subquestion_id, []).append(row)
    who = models_name(latest.generator, latest.nli)
    warnings = no_gain_warnings(who, table, "on this topic", "#seper-scores")
    subquestions = []
    for sq_rows in per_question.values():
        references = [str(g) for g in sq_rows[0].detail.get("golds", [])]
        sq_table, sq_baseline, sq_run, _ = _views(sq_rows, references, answers)
        sq = sq_rows[0].subquestion
        subquestions.append(SubQuestionSeper(sq, references, sq_table, sq_baseline, sq_run))
        scope, link = f"on sub-question {sq.position}", f"#seper-subquestion-{sq.position}"
        warnings += no_gain_warnings(who, sq_table, scope, link)
    return SeperPage(
        topic=topic,
        settings={"generator": latest.generator, "nli": latest.nli, **latest.params},
        rows=table,
        baseline=baseline,
        with_run=with_run,
        delta_figure=delta_figure(by_kind.get(SeperScore.ContextKind.PASSAGE, [])),
        subquestions=subquestions,
        warnings=warnings,
    )
