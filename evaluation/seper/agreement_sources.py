"""Human answer-equivalence labels vs the entailment kernel's decisions, as a label table.

An item is one judged text on a topic (or on a long-form sub-question): its
``equivalence_key``. Humans are researchers' yes/no on the SePer page
(``AnswerEquivalenceLabel``) and crowd annotators' task-3 labels
(``Assignment.objects.equivalence_labels()``, keyed by the answer output's text); a person is
one rater whichever way they labelled. The machine side is each NLI model's stored
``AnswerEquivalenceDecision`` (one rater per model). Only items that have a stored decision and
at least one human label are compared: a campaign answer whose decision the SePer job has not
stored yet is left out. With a campaign named, only that campaign's labels count.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np
from django.contrib.auth import get_user_model

from annotation.models import Assignment
from crux_app.models import GeneratedOutput, Judge, SubQuestion
from evaluation.agreement.label_tables import HUMAN, LabelQuery, LabelTable, Rater
from evaluation.seper.models import (
    AnswerEquivalenceDecision,
    AnswerEquivalenceLabel,
    equivalence_key,
)

if TYPE_CHECKING:
    from evaluation.agreement.label_tables import ComparisonSource

MACHINE_KIND = "nli"
MACHINE_ID_BASE = -1_000_000  # machine raters have no Judge row: negative ids, apart from users


def machine_name(nli: str) -> str:
    return f"SePer kernel ({nli})"


def _campaign_labels(query: LabelQuery) -> list[dict]:
    """Submitted task-3 labels on the collection's topics (of the named campaign only)."""
    scope = query.campaign
    if scope.applied and scope.task_type != "answer_equivalence":
        return []
    rows = Assignment.objects.equivalence_labels().filter(campaign__collection=query.collection)
    if scope.applied:
        rows = rows.filter(campaign_id=scope.campaign_id)
    return list(rows)


def _human_labels(query: LabelQuery) -> list[tuple[int, str, float, float]]:
    """(user id, equivalence key, label 0/1, time ms or NaN) of every usable human label."""
    out = []
    if not query.campaign.applied:
        page = AnswerEquivalenceLabel.objects.filter(
            topic__collection=query.collection, judge__user__isnull=False
        ).values_list("judge__user_id", "key", "equivalent")
        out += [(user, key, float(eq), np.nan) for user, key, eq in page]
    campaign = _campaign_labels(query)
    texts = dict(
        GeneratedOutput.objects.filter(
            pk__in={r["output_id"] for r in campaign if r["output_id"]}
        ).values_list("pk", "text")
    )
    for row in campaign:
        answer = row["answer"] or {}
        if row["output_id"] not in texts or not isinstance(answer.get("equivalent"), bool):
            continue
        key = equivalence_key(row["topic_id"], texts[row["output_id"]])
        spent = row["time_spent_ms"]
        out.append(
            (
                row["annotator_id"],
                key,
                float(answer["equivalent"]),
                np.nan if spent is None else spent,
            )
        )
    return out


def _human_raters(user_ids: set[int]) -> dict[int, Rater]:
    """One rater per person: their Judge (researchers', or the annotator's mirrored judge)
    when they have one, else ``user:NAME`` under the negated user id."""
    judges = {j.user_id: j for j in Judge.objects.filter(user_id__in=user_ids)}
    users = get_user_model().objects.filter(pk__in=user_ids)
    names = {user.pk: user.get_username() for user in users}
    raters = {}
    for user in sorted(user_ids):
        judge = judges.get(user)
        if judge is not None:
            raters[user] = Rater(judge.pk, judge.name, HUMAN, user_id=user)
        else:
            raters[user] = Rater(-user, f"user:{names.get(user, user)}", HUMAN, user_id=user)
    return raters


def load_answer_equivalence_table(query: LabelQuery, source: ComparisonSource) -> LabelTable:
    """The collection's answer-equivalence labels, humans and kernel decisions, as a table."""
    humans = _human_labels(query)
    decisions = list(
        AnswerEquivalenceDecision.objects.filter(
            topic__collection=query.collection, key__in={key for _, key, _, _ in humans}
        )
        .order_by("pk")
        .values_list("pk", "key", "topic_id", "subquestion_id", "nli", "equivalent")
    )
    items: dict[str, int] = {}  # key -> row
    first: list[tuple[int, int, int | None]] = []  # (decision pk, topic, sub-question)
    for pk, key, topic, sq, _, _ in decisions:
        if key not in items:
            items[key] = len(first)
            first.append((pk, topic, sq))
    nlis = sorted({nli for *_, nli, _ in decisions})
    people = _human_raters({user for user, key, _, _ in humans if key in items})
    human_list = [people[u] for u in sorted(people, key=lambda u: people[u].name)]
    machines = [
        Rater(MACHINE_ID_BASE - i, machine_name(nli), MACHINE_KIND, model_id=nli)
        for i, nli in enumerate(nlis)
    ]
    raters = (*machines, *human_list)
    column = {r.user_id: c for c, r in enumerate(raters) if r.user_id is not None}
    ratings = np.full((len(first), len(raters)), np.nan)
    times = np.full((len(first), len(raters)), np.nan)
    for user, key, label, spent in humans:
        if key in items:
            ratings[items[key], column[user]] = label
            times[items[key], column[user]] = spent
    for _, key, _, _, nli, equivalent in decisions:
        ratings[items[key], nlis.index(nli)] = float(equivalent)
    topic_ids = np.array([t for _, t, _ in first], dtype=np.int64)
    return LabelTable(
        source=source,
        raters=raters,
        topic_id=topic_ids,
        subquestion_id=_subquestions(first),
        item_id=np.array([pk for pk, _, _ in first], dtype=np.int64),
        item_kind="answer",
        ratings=ratings,
        times=times,
        unparsable={},
        binarised={},
    )


def _subquestions(first: list[tuple[int, int, int | None]]) -> np.ndarray:
    """The item's sub-question, or for a QA item its topic's first sub-question (the question
    itself, as ``import_qa`` stores it); 0 when the topic has none."""
    topics = {t for _, t, sq in first if sq is None}
    by_topic: dict[int, int] = defaultdict(int)
    rows = SubQuestion.objects.filter(topic_id__in=topics).order_by("topic_id", "-position")
    for topic, pk in rows.values_list("topic_id", "pk"):
        by_topic[topic] = pk
    return np.array([sq if sq is not None else by_topic[t] for _, t, sq in first], np.int64)


def answer_texts(item_ids: list[int]) -> dict[int, tuple[str, str]]:
    """A judged answer's label and text: an item of this source is an
    ``AnswerEquivalenceDecision`` row standing for its response text."""
    rows = AnswerEquivalenceDecision.objects.filter(pk__in=item_ids)
    return {pk: (f"answer {pk}", text) for pk, text in rows.values_list("pk", "response_text")}
