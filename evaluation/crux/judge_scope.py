"""Which (topic, sub-question, passage or report) items a judging job covers, and which of
them its judge has not rated yet.

Scopes (a job's topic, when it has one, narrows any of them to that topic):

- ``collection``: per topic, every passage in any run's top-k, in the topic's qrels, or
  already rated by some judge (so LLM and human labels meet on the same items), times each
  real (non-placeholder) sub-question;
- ``run``: the passages of one run's top-k, times each real sub-question;
- ``outputs``: the collection's generated reports, each judged whole as one context.

With the UMBRELA rubric (``pairs``) an item is a (topic, passage) pair of the ``collection`` or
``run`` scope, graded against the topic's query, and "rated" means the judge has a qrel for it.
A sample size draws a seeded uniform sample of the scope's items that have text (the same items
whatever the decoding seed, so a judge's sampled repeats rate the same sample).

Only missing items are ever judged: an item this judge has rated (even unparsably) is skipped.
Judging everything again means a new judge identity: another model or a new prompt version.
The plan reads everything in a handful of queries, whatever the collection's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber

from crux_app.dataio.qrels_judge import qrels_source
from crux_app.models import (
    Collection,
    GeneratedOutput,
    Judge,
    Judgment,
    Passage,
    PassageQrel,
    RunEntry,
    SubQuestion,
)

COLLECTION, RUN, OUTPUTS = "collection", "run", "outputs"
SCOPES: dict[str, str] = {
    COLLECTION: "Pooled passages: every run's top-k, qrels and passages already rated",
    RUN: "One run's top-k passages",
    OUTPUTS: "Generated reports (each report judged whole)",
}
BLANK = r"^\s*$"


class ItemKey(NamedTuple):
    """One item to judge; ``target_id`` is a passage pk, or an output pk for ``outputs``."""

    topic_id: int
    subquestion_id: int
    target_id: int


class PairKey(NamedTuple):
    """One (topic, passage) pair to grade (the UMBRELA rubric)."""

    topic_id: int
    passage_id: int


@dataclass(frozen=True)
class ScopeSpec:
    collection: Collection
    scope: str = COLLECTION
    k: int = 10
    run_id: int | None = None  # the run of the ``run`` scope
    topic_id: int | None = None  # narrows any scope to one topic
    pairs: bool = False  # (topic, passage) pairs, not (sub-question, passage) items
    sample_size: int | None = None  # a seeded uniform sample of this many items; None: all
    sample_seed: int = 0

    @property
    def judges_outputs(self) -> bool:
        return self.scope == OUTPUTS


@dataclass
class JudgePlan:
    """The scope's items split into those still to judge and those left out."""

    missing: list[ItemKey] | list[PairKey] = field(default_factory=list)
    already_judged: int = 0
    skipped_no_text: int = 0  # items whose passage (or report) has no text to show the judge
    sampled_from: int | None = None  # with a sample: how many items with text it was drawn from
    sample_seed: int = 0

    @property
    def n_items(self) -> int:
        return len(self.missing) + self.already_judged + self.skipped_no_text

    def summary(self) -> str:
        text = f"already judged {self.already_judged}, skipped (no text) {self.skipped_no_text}"
        if self.sampled_from is not None:
            size = len(self.missing) + self.already_judged
            text += f", sample of {size} of {self.sampled_from} items (seed {self.sample_seed})"
        return text


def plan_items(spec: ScopeSpec, judge: Judge | None) -> JudgePlan:
    """Every item of the scope, in (topic, passage or report, sub-question) order, split
    (``judge`` None: a judge not stored yet, which has rated nothing)."""
    pairs = sorted(_outputs(spec) if spec.judges_outputs else _passages(spec))
    no_text = _without_text(spec)
    plan = JudgePlan()
    keys: list[ItemKey] | list[PairKey]
    if spec.pairs:
        keys, judged = [PairKey(t, p) for t, p in pairs], _graded(spec, judge)
    else:
        questions = _subquestions(spec)
        keys = [ItemKey(t, q, p) for t, p in pairs for q in questions.get(t, ())]
        judged = _judged(spec, judge)
    # What the judge rated counts as judged even if its text has gone since.
    items = []
    for key in keys:
        if _identity(key) not in judged and key[-1] in no_text:
            plan.skipped_no_text += 1
        else:
            items.append(key)
    if spec.sample_size is not None and spec.sample_size < len(items):
        plan.sampled_from, plan.sample_seed = len(items), spec.sample_seed
        items = sample_items(items, spec.sample_size, spec.sample_seed)
    for key in items:
        if _identity(key) in judged:
            plan.already_judged += 1
        else:
            plan.missing.append(key)
    return plan


def sample_items(items: list, size: int, seed: int) -> list:
    """A uniform sample without replacement of ``size`` items, kept in the items' order."""
    chosen = np.random.default_rng(seed).choice(len(items), size=size, replace=False)
    return [items[i] for i in sorted(chosen.tolist())]


def _identity(key: ItemKey | PairKey) -> tuple[int, int]:
    if isinstance(key, PairKey):
        return key
    return key.subquestion_id, key.target_id


def judged_pairs(judge: Judge, keys: list[PairKey]) -> set[PairKey]:
    """Those of ``keys`` the judge has graded: a qrel under its name (one query)."""
    stored = set(
        PassageQrel.objects.filter(
            source=qrels_source(judge.name),
            topic_id__in={k.topic_id for k in keys},
            passage_id__in={k.passage_id for k in keys},
        ).values_list("topic_id", "passage_id")
    )
    return {k for k in keys if k in stored}


def judged_keys(judge: Judge, keys: list[ItemKey], outputs: bool) -> set[ItemKey]:
    """Those of ``keys`` the judge has rated (one query)."""
    target = "output_id" if outputs else "passage_id"
    stored = set(
        Judgment.objects.filter(
            judge=judge,
            subquestion_id__in={k.subquestion_id for k in keys},
            **{f"{target}__in": {k.target_id for k in keys}},
        ).values_list("subquestion_id", target)
    )
    return {k for k in keys if (k.subquestion_id, k.target_id) in stored}


def _topic_filter(spec: ScopeSpec, prefix: str = "") -> Q:
    where = Q(**{f"{prefix}topic__collection": spec.collection})
    if spec.topic_id is not None:
        where &= Q(**{f"{prefix}topic_id": spec.topic_id})
    return where


def _top_k(spec: ScopeSpec) -> set[tuple[int, int]]:
    """(topic, passage) pairs of the top-k of every run (or the scope's run)."""
    entries = RunEntry.objects.filter(_topic_filter(spec), run__collection=spec.collection)
    if spec.scope == RUN:
        entries = entries.filter(run_id=spec.run_id)
    # Position in (rank, file line) order: some run files repeat one rank for a whole topic.
    position = Window(
        RowNumber(),
        partition_by=[F("run_id"), F("topic_id")],
        order_by=[F("rank"), F("line_order")],
    )
    ranked = entries.order_by().annotate(position=position).filter(position__lte=spec.k)
    return set(ranked.values_list("topic_id", "passage_id"))


def _passages(spec: ScopeSpec) -> set[tuple[int, int]]:
    pairs = _top_k(spec)
    if spec.scope == COLLECTION:
        pairs |= set(
            PassageQrel.objects.filter(_topic_filter(spec)).values_list("topic_id", "passage_id")
        )
        pairs |= set(
            Judgment.objects.filter(_topic_filter(spec), passage__isnull=False)
            .order_by()
            .values_list("topic_id", "passage_id")
            .distinct()
        )
    return pairs


def _outputs(spec: ScopeSpec) -> set[tuple[int, int]]:
    reports = GeneratedOutput.objects.filter(_topic_filter(spec), kind=GeneratedOutput.Kind.REPORT)
    return set(reports.values_list("topic_id", "pk"))


def _subquestions(spec: ScopeSpec) -> dict[int, list[int]]:
    """Each topic's real sub-questions in position order (placeholders are never judged)."""
    rows = (
        SubQuestion.objects.filter(_topic_filter(spec), is_placeholder=False)
        .order_by("topic_id", "position")
        .values_list("topic_id", "pk")
    )
    out: dict[int, list[int]] = {}
    for topic_id, pk in rows:
        out.setdefault(topic_id, []).append(pk)
    return out


def _judged(spec: ScopeSpec, judge: Judge | None) -> set[tuple[int, int]]:
    if judge is None:
        return set()
    target = "output_id" if spec.judges_outputs else "passage_id"
    rows = Judgment.objects.filter(_topic_filter(spec), judge=judge, **{f"{target}__isnull": False})
    return set(rows.values_list("subquestion_id", target))


def _graded(spec: ScopeSpec, judge: Judge | None) -> set[tuple[int, int]]:
    if judge is None:
        return set()
    rows = PassageQrel.objects.filter(_topic_filter(spec), source=qrels_source(judge.name))
    return set(rows.values_list("topic_id", "passage_id"))


def _without_text(spec: ScopeSpec) -> set[int]:
    if spec.judges_outputs:
        rows = GeneratedOutput.objects.filter(collection=spec.collection, text__regex=BLANK)
    else:
        rows = Passage.objects.filter(
            Q(has_text=False) | Q(text__regex=BLANK), collection=spec.collection
        )
    return set(rows.values_list("pk", flat=True))
