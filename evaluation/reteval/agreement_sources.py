"""The 'failure_category' comparison source: the humans' categories of annotation task 4 against
LLM-retEval's pre-labels, on the same RAG answers (nominal scale, categories A-F as 0-5).

Items are RAG answers (``GeneratedOutput``); each is shown under its question's sub-question
(QA topics have one, the question itself). Raters: every annotator who labelled task 4 in a
campaign of the collection (``user:<username>``, as the mirrored judgments name them) and one
machine rater per judge whose results pre-labelled an answer. A human's latest label counts.
An answer whose topic has no real sub-question cannot be shown in the report's tables and is
left out.
"""

from __future__ import annotations

import numpy as np

from annotation.models import Assignment
from crux_app.models import GeneratedOutput, SubQuestion
from crux_app.vocabulary import FAILURE_SHORT_NAMES
from evaluation.agreement.label_tables import ComparisonSource, LabelQuery, LabelTable, Rater, Scale
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.method.verdicts import CATEGORIES, CATEGORY_NUMBERS
from evaluation.reteval.models import RetEvalResult

SOURCE_KEY = "failure_category"
MACHINE_KIND = "prelabel"


def machine_rater_name(judge: str) -> str:
    return f"reteval-prelabel:{judge}"


def _human_labels(query: LabelQuery) -> dict[tuple[int, str, int], tuple[float, float | None]]:
    """(output pk, username, user pk) -> (category number, time ms)."""
    rows = Assignment.objects.failure_category_labels().filter(
        campaign__collection=query.collection
    )
    if query.campaign.applied:
        rows = rows.filter(campaign_id=query.campaign.campaign_id)
    out = {}
    for row in rows.order_by("submitted_at"):
        category = (row["answer"] or {}).get("category")
        if row["output_id"] is None or category not in CATEGORY_NUMBERS:
            continue
        key = (row["output_id"], row["annotator_name"], row["annotator_id"])
        out[key] = (CATEGORY_NUMBERS[category], row["time_spent_ms"])
    return out


def load_failure_category_table(query: LabelQuery, source: ComparisonSource) -> LabelTable:
    humans = _human_labels(query)
    results = RetEvalResult.objects.filter(
        topic__collection=query.collection, prompt_version=PROMPT_VERSION
    ).exclude(category="")
    if query.campaign.applied:
        results = results.filter(rag_output_id__in={key[0] for key in humans})
    machine = {}
    for output_id, topic_id, judge, category in results.values_list(
        "rag_output_id", "topic_id", "judge", "category"
    ):
        machine[(output_id, judge)] = (topic_id, CATEGORY_NUMBERS[category])
    users = sorted({(name, user_id) for _, name, user_id in humans})
    judges = sorted({judge for _, judge in machine})
    raters = tuple(
        [Rater(-user_id, f"user:{name}", "human", user_id=user_id) for name, user_id in users]
        + [Rater(0, machine_rater_name(j), MACHINE_KIND, model_id=j, prompt_version=PROMPT_VERSION)
           for j in judges]
    )  # fmt: skip
    outputs = sorted({key[0] for key in humans} | {key[0] for key in machine})
    topic_of = _topics(outputs)
    subquestion_of = _first_subquestions(set(topic_of.values()))
    outputs = [o for o in outputs if topic_of.get(o) in subquestion_of]
    row = {o: i for i, o in enumerate(outputs)}
    ratings = np.full((len(outputs), len(raters)), np.nan)
    times = np.full((len(outputs), len(raters)), np.nan)
    column = {r.name: i for i, r in enumerate(raters)}
    for (output_id, name, _), (value, time_ms) in humans.items():
        if output_id in row:
            ratings[row[output_id], column[f"user:{name}"]] = value
            times[row[output_id], column[f"user:{name}"]] = np.nan if time_ms is None else time_ms
    for (output_id, judge), (_, value) in machine.items():
        if output_id in row:
            ratings[row[output_id], column[machine_rater_name(judge)]] = value
    topics = np.array([topic_of[o] for o in outputs], np.int64)
    return LabelTable(
        source=source,
        raters=raters,
        topic_id=topics,
        subquestion_id=np.array([subquestion_of[t] for t in topics.tolist()], np.int64),
        item_id=np.array(outputs, np.int64),
        item_kind="output",
        ratings=ratings,
        times=times,
        unparsable={},
        binarised={},
    )


def _topics(outputs: list[int]) -> dict[int, int]:
    return dict(GeneratedOutput.objects.filter(pk__in=outputs).values_list("pk", "topic_id"))


def _first_subquestions(topic_ids: set[int]) -> dict[int, int]:
    """Topic pk -> its first real sub-question (a QA topic's question)."""
    out: dict[int, int] = {}
    rows = SubQuestion.objects.filter(topic_id__in=topic_ids, is_placeholder=False)
    for topic_id, pk in rows.order_by("topic_id", "position").values_list("topic_id", "pk"):
        out.setdefault(topic_id, pk)
    return out


# Declared in RetevalConfig (apps.py).
SOURCE = ComparisonSource(
    key=SOURCE_KEY,
    title="Retrieval failure category of a RAG answer, A-F (LLM-retEval, task 4)",
    scale=Scale.NOMINAL,
    machine="LLM-retEval pre-labels",
    categories=tuple(CATEGORY_NUMBERS[c] for c in CATEGORIES),
    class_names=tuple((CATEGORY_NUMBERS[c], FAILURE_SHORT_NAMES[c]) for c in CATEGORIES),
    loader=load_failure_category_table,
)
