"""What the DENSE page of one question shows: the graph, the chunk table, the refinement and
the researcher's stored answers to the judgment forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crux_app.models import Passage, Topic
from evaluation.dense.graph_figure import clusters, graph_figure
from evaluation.dense.models import DenseLabel, DenseResult


@dataclass
class ChunkRow:
    index: int  # 1-based, as r_i
    passage: Passage | None
    original: str
    rephrased: str
    response: str
    label: str
    ablation_answer: str | None
    faithful: bool | None
    judged_faithful: bool | None


@dataclass
class EdgeRow:
    i: int
    j: int
    first: str
    second: str
    weight: float
    judged: bool | None


@dataclass
class QuestionPage:
    topic: Topic
    result: DenseResult | None
    others: list[DenseResult] = field(default_factory=list)
    figure: dict[str, Any] | None = None
    chunks: list[ChunkRow] = field(default_factory=list)
    edges: list[EdgeRow] = field(default_factory=list)
    clusters: list[list[int]] = field(default_factory=list)
    refinement: dict[str, Any] | None = None
    refinement_steps: list[dict[str, Any]] = field(default_factory=list)
    judged_correct: bool | None = None


def _passages(ids: list[int]) -> dict[int, Passage]:
    return {p.pk: p for p in Passage.objects.filter(pk__in=ids)}


def question_page(topic: Topic, result: DenseResult | None, user_id: int) -> QuestionPage:
    others = list(
        DenseResult.objects.filter(topic=topic).select_related("run").order_by("-created_at")
    )
    page = QuestionPage(topic, result, others)
    if result is None:
        return page
    d = result.detail
    mine = {
        (label.kind, label.i, label.j): label.value
        for label in DenseLabel.objects.filter(result=result, judge__user_id=user_id)
    }
    page.judged_correct = mine.get((DenseLabel.Kind.ANSWER_CORRECT, 0, 0))
    page.figure = graph_figure(d)
    page.clusters = clusters(d["W"])
    passages = _passages(d.get("pool_passage_ids", []))
    ids = d.get("passage_ids", [])
    faithful = d.get("rephrase_faithful") or []
    ablation = d.get("ablation_answers", {})
    for n, (original, rephrased) in enumerate(zip(d["chunks"], d["rephrased"], strict=True)):
        page.chunks.append(
            ChunkRow(
                index=n + 1,
                passage=passages.get(ids[n]) if n < len(ids) else None,
                original=original,
                rephrased=rephrased,
                response=d["responses"][n + 1],
                label=d["labels"][n],
                ablation_answer=ablation.get(str(n)),
                faithful=faithful[n] if n < len(faithful) else None,
                judged_faithful=mine.get((DenseLabel.Kind.REPHRASE_FAITHFUL, n + 1, 0)),
            )
        )
    responses, w = d["responses"], d["W"]
    for i in range(len(responses)):
        for j in range(i + 1, len(responses)):
            # Identical texts were never sent to the judge: there is nothing to judge.
            if responses[i].strip() != responses[j].strip():
                judged = mine.get((DenseLabel.Kind.RESPONSE_EQUIVALENT, i, j))
                page.edges.append(EdgeRow(i, j, responses[i], responses[j], w[i][j], judged))
    page.refinement = d.get("refinement")
    if page.refinement:
        pool_ids = d.get("pool_passage_ids", [])
        for step in page.refinement["steps"]:

            def names(indices):
                return [
                    passages[pool_ids[c]].external_id if c < len(pool_ids) else str(c)
                    for c in indices
                ]

            page.refinement_steps.append(
                {
                    **step,
                    "context_names": names(step["context"]),
                    "removed_names": names(step["removed"]),
                    "added_names": names(step["added"]),
                }
            )
    return page
