"""The worst disagreements of a label table, with the text that was judged.

A disagreement is an item on which two raters gave different labels: a human and an LLM judge
when the table has a machine rater, otherwise two humans. Worst first: the largest |difference|
(on 0-5 ratings), then a difference across tau (one says answerable, the other not).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from django.db.models import Q

from crux_app.models import GeneratedOutput, Judgment, Passage, SubQuestion, Topic
from evaluation.agreement.label_tables import LabelTable
from evaluation.agreement.sources import item_texts

TEXT_CHARS = 600


@dataclass(frozen=True)
class Disagreement:
    task: str
    topic_id: int
    topic: str
    subquestion_id: int
    position: int
    question: str
    item_kind: str  # "passage" or "output"
    item_id: int
    item: str  # external id
    item_text: str
    reference: str  # the human rater
    reference_id: int
    reference_label: float
    reference_rationale: str
    judge: str  # the machine rater, or the second human
    judge_id: int
    judge_kind: str
    judge_label: float
    judge_rationale: str  # a human's rationale, or the LLM's raw output
    difference: float
    crosses_tau: bool

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _pairs(table: LabelTable) -> list[tuple[int, int]]:
    humans, machines = table.humans(), table.machines()
    if machines:
        return [(h, m) for m in machines for h in humans]
    return [(a, b) for i, a in enumerate(humans) for b in humans[i + 1 :]]


def worst_disagreements(table: LabelTable, tau: float, limit: int) -> list[Disagreement]:
    """At most ``limit`` disagreements of the table, worst first, with their texts."""
    rows, refs, judges, diffs, crosses = [], [], [], [], []
    binary = tuple(table.source.categories) == (0.0, 1.0)
    cut = 1.0 if binary else tau
    for a, b in _pairs(table):
        x, y = table.ratings[:, a], table.ratings[:, b]
        differ = np.flatnonzero(~np.isnan(x) & ~np.isnan(y) & (x != y))
        rows.append(differ)
        refs.append(np.full(len(differ), a))
        judges.append(np.full(len(differ), b))
        diffs.append(np.abs(x[differ] - y[differ]))
        crosses.append((x[differ] >= cut) != (y[differ] >= cut))
    if not rows:
        return []
    row, ref, judge = (np.concatenate(v) for v in (rows, refs, judges))
    diff, cross = np.concatenate(diffs), np.concatenate(crosses)
    # lexsort: the last key is the primary one.
    order = np.lexsort((row, ~cross, -diff))[:limit]
    return _with_texts(table, row[order], ref[order], judge[order], diff[order], cross[order])


def _with_texts(table, row, ref, judge, diff, cross) -> list[Disagreement]:
    if not len(row):
        return []
    sq_ids = table.subquestion_id[row].tolist()
    item_ids = table.item_id[row].tolist()
    questions = {
        pk: (pos, text)
        for pk, pos, text in SubQuestion.objects.filter(pk__in=sq_ids).values_list(
            "pk", "position", "text"
        )
    }
    items = _item_texts(table.item_kind, item_ids)
    topics = dict(
        Topic.objects.filter(pk__in=table.topic_id[row].tolist()).values_list("pk", "external_id")
    )
    judge_ids = {table.raters[i].id for i in np.concatenate([ref, judge]).tolist()}
    texts = _judgment_texts(table.item_kind, judge_ids, sq_ids, item_ids)
    out = []
    for r, a, b, d, c in zip(row, ref, judge, diff, cross, strict=True):
        sq, item = int(table.subquestion_id[r]), int(table.item_id[r])
        ra, rb = table.raters[a], table.raters[b]
        position, question = questions.get(sq, (0, ""))
        ext, text = items[item]
        out.append(
            Disagreement(
                task=table.source.key,
                topic_id=int(table.topic_id[r]),
                topic=topics[int(table.topic_id[r])],
                subquestion_id=sq,
                position=position,
                question=question,
                item_kind=table.item_kind,
                item_id=item,
                item=ext,
                item_text=text,
                reference=ra.name,
                reference_id=ra.id,
                reference_label=float(table.ratings[r, a]),
                reference_rationale=texts.get((ra.id, sq, item), ""),
                judge=rb.name,
                judge_id=rb.id,
                judge_kind=rb.kind,
                judge_label=float(table.ratings[r, b]),
                judge_rationale=texts.get((rb.id, sq, item), ""),
                difference=float(d),
                crosses_tau=bool(c),
            )
        )
    return out


def _item_texts(kind: str, item_ids: list[int]) -> dict[int, tuple[str, str]]:
    """Item pk -> (external id, text): passages, outputs, or the items of a kind a method
    registered texts for (SePer's judged answers)."""
    registered = item_texts(kind)
    if registered is not None:
        return {pk: (ext, text[:TEXT_CHARS]) for pk, (ext, text) in registered(item_ids).items()}
    model = Passage if kind == "passage" else GeneratedOutput
    return {
        pk: (ext, text[:TEXT_CHARS])
        for pk, ext, text in model.objects.filter(pk__in=item_ids).values_list(
            "pk", "external_id", "text"
        )
    }


def _judgment_texts(kind: str, judges: set[int], sq_ids: list[int], item_ids: list[int]):
    """(judge, sub-question, item) -> a human's rationale or an LLM's raw output."""
    if kind not in ("passage", "output"):
        return {}
    field = f"{kind}_id"
    rows = Judgment.objects.filter(
        Q(judge_id__in=judges), Q(subquestion_id__in=sq_ids), Q(**{f"{field}__in": item_ids})
    ).values_list("judge_id", "subquestion_id", field, "rationale", "raw_output")
    return {(j, s, i): (rationale or raw)[:TEXT_CHARS] for j, s, i, rationale, raw in rows}
