"""CRUX's comparison sources: the passage ratings (task 2) and report coverage labels (task 1)
of the Judgment table, humans and LLM judges, as label tables.

An item is a (sub-question, passage) pair for passage ratings and a (sub-question, output)
pair for report coverage; placeholder sub-questions are skipped. A rating stored as NULL is an
LLM output that could not be parsed: it is counted per rater and left out of every statistic.
An LLM judge that rated reports 0-5 is turned into answerable yes/no at tau, as the
leaderboard's report coverage does, and the table says so.
"""

from __future__ import annotations

import numpy as np

from crux_app.models import Judgment
from crux_app.query_arrays import int_columns
from evaluation.agreement.label_tables import ComparisonSource, LabelQuery, LabelTable

ITEM_FIELDS = {"passage_rating": "passage_id", "report_coverage": "output_id"}


def load_judgment_table(query: LabelQuery, source: ComparisonSource) -> LabelTable:
    """One CRUX task's judgments (``source.key`` is the Judgment task) as a label table."""
    item_field = ITEM_FIELDS[source.key]
    judgments = Judgment.objects.filter(
        topic__collection=query.collection,
        task=source.key,
        subquestion__is_placeholder=False,
        judge_id__in=[r.id for r in query.raters],
        **{f"{item_field}__isnull": False},
    )
    rows = int_columns(
        query.campaign.restrict(judgments),
        ["judge_id", "topic_id", "subquestion_id", item_field, "rating", "time_spent_ms"],
    )
    present = set(np.unique(rows[:, 0]).tolist())
    raters = tuple(r for r in query.raters if r.id in present)
    rater_ids = np.array([r.id for r in raters], np.int64)
    parsed = rows[rows[:, 4] >= 0]
    unparsable = {r.name: int(((rows[:, 0] == r.id) & (rows[:, 4] < 0)).sum()) for r in raters}
    base = int(parsed[:, 3].max(initial=0)) + 1
    keys, first, item = np.unique(
        parsed[:, 2] * base + parsed[:, 3], return_index=True, return_inverse=True
    )
    order = np.argsort(rater_ids)
    column = order[np.searchsorted(rater_ids[order], parsed[:, 0])]
    ratings = np.full((len(keys), len(raters)), np.nan)
    times = np.full((len(keys), len(raters)), np.nan)
    ratings[item, column] = parsed[:, 4]
    times[item, column] = np.where(parsed[:, 5] < 0, np.nan, parsed[:, 5])
    binarised = _binarise(source, raters, ratings, query.tau)
    return LabelTable(
        source=source,
        raters=raters,
        topic_id=parsed[first, 1],
        subquestion_id=parsed[first, 2],
        item_id=parsed[first, 3],
        item_kind=item_field.removesuffix("_id"),
        ratings=ratings,
        times=times,
        unparsable={k: v for k, v in unparsable.items() if v},
        binarised=binarised,
    )


def _binarise(source, raters, ratings: np.ndarray, tau: float) -> dict[str, float]:
    """Cut a machine's 0-5 ratings of a yes/no task at tau, in place."""
    if tuple(source.categories) != (0.0, 1.0):
        return {}
    out = {}
    for i, rater in enumerate(raters):
        column = ratings[:, i]
        if not rater.is_human and np.nanmax(column, initial=0) > 1:
            labelled = ~np.isnan(column)
            column[labelled] = (column[labelled] >= tau).astype(float)
            out[rater.name] = tau
    return out
