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
from evaluation.agreement.label_tables import LabelTable, Rater
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


@dataclass(frozen=True)
class DisagreementSet:
    """Every disagreement of one label table, worst first, without texts: what the page
    filters and pages (texts are read for the shown rows only, ``with_texts``)."""

    task: str
    item_kind: str
    raters: tuple[Rater, ...]
    topic_id: np.ndarray
    subquestion_id: np.ndarray
    item_id: np.ndarray
    reference: np.ndarray  # rater index of the human side
    judge: np.ndarray  # rater index of the machine (or second human) side
    reference_label: np.ndarray
    judge_label: np.ndarray
    difference: np.ndarray
    crosses_tau: np.ndarray

    def __len__(self) -> int:
        return len(self.difference)


def disagreement_set(table: LabelTable, tau: float) -> DisagreementSet:
    """Every disagreement of the table: largest |difference| first, then those across tau."""
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
    empty = np.zeros(0, dtype=np.int64)
    row, ref, judge = (np.concatenate(v) if v else empty for v in (rows, refs, judges))
    diff = np.concatenate(diffs) if diffs else np.zeros(0)
    cross = np.concatenate(crosses) if crosses else np.zeros(0, dtype=bool)
    # lexsort: the last key is the primary one.
    order = np.lexsort((row, ~cross, -diff))
    row, ref, judge = row[order], ref[order], judge[order]
    return DisagreementSet(
        task=table.source.key,
        item_kind=table.item_kind,
        raters=tuple(table.raters),
        topic_id=table.topic_id[row],
        subquestion_id=table.subquestion_id[row],
        item_id=table.item_id[row],
        reference=ref,
        judge=judge,
        reference_label=table.ratings[row, ref] if len(row) else np.zeros(0),
        judge_label=table.ratings[row, judge] if len(row) else np.zeros(0),
        difference=diff[order],
        crosses_tau=cross[order],
    )


def with_texts(found: DisagreementSet, rows: list[int]) -> list[Disagreement]:
    """The disagreements at positions ``rows`` of ``found``, with the texts that were judged."""
    if not rows:
        return []
    picked = np.asarray(rows, dtype=np.int64)
    sq_ids = found.subquestion_id[picked].tolist()
    item_ids = found.item_id[picked].tolist()
    questions = {
        pk: (pos, text)
        for pk, pos, text in SubQuestion.objects.filter(pk__in=sq_ids).values_list(
            "pk", "position", "text"
        )
    }
    items = _item_texts(found.item_kind, item_ids)
    topics = dict(
        Topic.objects.filter(pk__in=found.topic_id[picked].tolist()).values_list(
            "pk", "external_id"
        )
    )
    judge_ids = {
        found.raters[i].id
        for i in np.concatenate([found.reference[picked], found.judge[picked]]).tolist()
    }
    texts = _judgment_texts(found.item_kind, judge_ids, sq_ids, item_ids)
    out = []
    for r in picked.tolist():
        sq, item, topic = (
            int(found.subquestion_id[r]),
            int(found.item_id[r]),
            int(found.topic_id[r]),
        )
        ra, rb = found.raters[int(found.reference[r])], found.raters[int(found.judge[r])]
        position, question = questions.get(sq, (0, ""))
        ext, text = items[item]
        out.append(
            Disagreement(
                task=found.task,
                topic_id=topic,
                topic=topics[topic],
                subquestion_id=sq,
                position=position,
                question=question,
                item_kind=found.item_kind,
                item_id=item,
                item=ext,
                item_text=text,
                reference=ra.name,
                reference_id=ra.id,
                reference_label=float(found.reference_label[r]),
                reference_rationale=texts.get((ra.id, sq, item), ""),
                judge=rb.name,
                judge_id=rb.id,
                judge_kind=rb.kind,
                judge_label=float(found.judge_label[r]),
                judge_rationale=texts.get((rb.id, sq, item), ""),
                difference=float(found.difference[r]),
                crosses_tau=bool(found.crosses_tau[r]),
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
