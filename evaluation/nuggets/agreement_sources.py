"""The 'nugget_assignment' comparison source: judges' support labels of (nugget, answer) items,
people's against LLMs' (nominal: not support 0, partial support 1, support 2: the
report's ordinal scale is CRUX's 0-5 rubric with its tau cut), for the
agreement page's kappa and alpha with their intervals.

The agreement tables place each item under a sub-question: a nugget enters once it is linked
to one (``manage.py subquestions_from_nuggets``), so the item is (sub-question, answer), the
same item as CRUX's report coverage of that sub-question.
"""

from __future__ import annotations

import numpy as np

from crux_app.models import Judge
from evaluation.agreement.label_tables import ComparisonSource, LabelQuery, LabelTable, Rater, Scale
from evaluation.nuggets.method.scores import NOT_SUPPORT, PARTIAL_SUPPORT, SUPPORT
from evaluation.nuggets.models import NuggetAssignment

SOURCE_KEY = "nugget_assignment"
VALUES = {NOT_SUPPORT: 0.0, PARTIAL_SUPPORT: 1.0, SUPPORT: 2.0}


def load_assignment_table(query: LabelQuery, source: ComparisonSource) -> LabelTable:
    rows = NuggetAssignment.objects.filter(
        output__collection=query.collection, nugget__subquestion__isnull=False
    ).values_list(
        "judge_id", "nugget__topic_id", "nugget__subquestion_id", "output_id", "assignment"
    )
    rows = list(rows)
    judges = Judge.objects.filter(pk__in={r[0] for r in rows}).order_by("name")
    raters = tuple(
        Rater(j.pk, j.name, j.kind, j.model_id, j.prompt_version, j.user_id) for j in judges
    )
    items = sorted({(topic, subquestion, output) for _, topic, subquestion, output, _ in rows})
    row_of = {item: i for i, item in enumerate(items)}
    column = {r.id: i for i, r in enumerate(raters)}
    ratings = np.full((len(items), len(raters)), np.nan)
    for judge_id, topic, subquestion, output, label in rows:
        ratings[row_of[(topic, subquestion, output)], column[judge_id]] = VALUES[label]
    return LabelTable(
        source=source,
        raters=raters,
        topic_id=np.array([i[0] for i in items], np.int64),
        subquestion_id=np.array([i[1] for i in items], np.int64),
        item_id=np.array([i[2] for i in items], np.int64),
        item_kind="output",
        ratings=ratings,
        times=np.full((len(items), len(raters)), np.nan),
        unparsable={},
        binarised={},
    )


# Declared in NuggetsConfig (apps.py).
SOURCE = ComparisonSource(
    key=SOURCE_KEY,
    title="Does the answer state the nugget: not, partly, fully (nugget assignment)",
    scale=Scale.NOMINAL,
    machine="LLM nugget assignments",
    categories=(0.0, 1.0, 2.0),
    class_names=((2.0, "support"), (1.0, "partial support"), (0.0, "not support")),
    loader=load_assignment_table,
)
