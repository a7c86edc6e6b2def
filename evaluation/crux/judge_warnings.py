"""Degenerate-judge warnings about CRUX's judges, from stored judgments: nearly constant ratings
and unparsable outputs of a judge on a collection (one topic's matrix: ``matrix.judge_warnings``),
and runs tied on a metric of ``evaluate``. The checks themselves are
``evaluation.shared.degenerate``'s."""

from __future__ import annotations

from collections.abc import Mapping

from django.db.models import Count
from django.urls import reverse

from crux_app.inputs import JudgeInfo
from crux_app.models import Collection, Judgment
from evaluation.crux.evaluate import Evaluation
from evaluation.leaderboard.columns import columns
from evaluation.shared.degenerate import JudgeWarning, rating_warnings, tied_runs

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING


def collection_rating_counts(collection: Collection, judge_id: int) -> tuple[dict[float, int], int]:
    """(rating -> passage judgments, unparsable ones) of a judge in the collection."""
    rows = (
        Judgment.objects.filter(
            judge_id=judge_id,
            topic__collection=collection,
            task=PASSAGE_RATING,
            passage__isnull=False,
        )
        .order_by()
        .values_list("rating")
        .annotate(n=Count("pk"))
    )
    counts = dict(rows)
    unparsable = counts.pop(None, 0)
    return {float(r): n for r, n in counts.items()}, unparsable


def first_matrix_url(evaluation: Evaluation) -> str:
    """The coverage matrix of the collection's first topic with the evaluation's judge shown."""
    if evaluation.judge is None or not len(evaluation.topic_ids):
        return ""
    names = evaluation.topic_names
    first = min(range(len(names)), key=lambda t: names[t])
    args = [evaluation.collection.pk, int(evaluation.topic_ids[first])]
    return f"{reverse('crux-topic', args=args)}?judge={evaluation.judge.id}"


def judge_warnings(
    collection: Collection,
    judge: JudgeInfo | None,
    link: str = "",
    rating_counts: tuple[dict[float, int], int] | None = None,
) -> list[JudgeWarning]:
    """The judge's passage ratings on the whole collection (``link``: where to read them);
    ``rating_counts``: those counts when the caller has them already (an evaluation read the
    ratings: counting them again would scan every judgment of the collection)."""
    if judge is None:
        return []
    counts, unparsable = rating_counts or collection_rating_counts(collection, judge.id)
    warnings = rating_warnings(judge.name, counts, unparsable, f"in {collection.name}")
    if link:
        return [w.linked(link, "its ratings, topic by topic") for w in warnings]
    return warnings


def _is_number(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def tie_warnings(
    table: Mapping[str, Mapping[str, float | None]], judge: str = ""
) -> list[JudgeWarning]:
    """Every numeric metric (column key -> run -> value) on which all runs with a value
    agree (a column holding anything but numbers and None is no metric)."""
    found = [
        tied_runs(metric, values, judge=judge)
        for metric, values in table.items()
        if all(_is_number(v) for v in values.values())
    ]
    return [w for w in found if w is not None]


def evaluation_warnings(
    evaluation: Evaluation, extra: Mapping[str, Mapping[str, float | None]] | None = None
) -> list[JudgeWarning]:
    """What ``manage.py evaluate`` says beside its records: the judge's ratings on the
    collection, and each metric (CRUX's and the other columns printed) that ties every run."""
    judge = evaluation.judge.name if evaluation.judge else ""
    warnings = judge_warnings(
        evaluation.collection, evaluation.judge, rating_counts=evaluation.rating_counts
    )
    warnings += tie_warnings(evaluation.metric_table(), judge)
    # The other methods' metrics (not their counts or texts) do not rest on this judge.
    metrics = {c.key for c in columns() if c.display == "number" and c.ranked != "never"}
    others = {key: values for key, values in (extra or {}).items() if key in metrics}
    return warnings + tie_warnings(others)
