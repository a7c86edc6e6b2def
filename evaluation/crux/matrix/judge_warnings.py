"""Degenerate-judge warnings about the judge a topic's coverage matrix shows: its ratings of
the matrix cells (nearly constant, too many unparsable), and, for what the topic does not show,
its ratings on the whole collection (a judge that gives one value to nearly every item of the
collection is read with care on each topic too). The checks are
``evaluation.shared.degenerate.rating_warnings``, as on every page showing a judge's numbers."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from crux_app.inputs import collection_judges
from crux_app.models import Topic
from evaluation.crux.matrix.matrix import TopicMatrix
from evaluation.shared.degenerate import JudgeWarning, judges_rating_warnings, rating_warnings


def matrix_warnings(matrix: TopicMatrix) -> list[JudgeWarning]:
    """The shown judge's ratings of the topic's matrix cells (its numbers are the matrix), then
    of the collection where the topic's alone raise no warning of that kind."""
    if matrix.judge is None:
        return []
    codes = matrix.codes[matrix.codes >= 0]
    values, counts = np.unique(codes, return_counts=True)
    histogram = dict(zip(values.tolist(), counts.tolist(), strict=True))
    scope = f"of topic {matrix.topic.external_id}"
    warnings = rating_warnings(matrix.judge.name, histogram, matrix.n_unparsable, scope)
    found = [w.linked("#matrix-plot", "its ratings: the matrix below") for w in warnings]
    collection = matrix.topic.collection
    judges = collection_judges(collection, as_read=True)  # the page read its version
    wide = judges_rating_warnings(judges, f"in {collection.name}", [matrix.judge.name])
    shown = {w.kind for w in found}
    return found + [w for w in wide if w.kind not in shown]


def cell_warnings(topic: Topic, judge_names: Iterable[str]) -> list[JudgeWarning]:
    """The collection-wide warnings about the judges whose ratings a cell panel lists."""
    collection = topic.collection
    scope = f"in {collection.name}"
    judges = collection_judges(collection, as_read=True)
    return judges_rating_warnings(judges, scope, judge_names)
