"""How the greedy required subset (METHODS section 1) agrees with a collection's imported grades.

The computed grades (3 required, 2 partially, 1 fully redundant) cover the passages the judge
rated; the imported ones are the chosen qrels source. Passages are compared per topic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from crux_app.inputs import (
    EvaluationInputError,
    resolve_judge,
    resolve_qrels_source,
)
from crux_app.models import Collection
from evaluation.crux.collection_data import load_collection
from evaluation.crux.method.required_subset import GradeAgreement, grade_agreement, select_required


@dataclass(frozen=True)
class RequiredAgreement:
    judge: str
    qrels_source: str
    tau: float
    agreement: GradeAgreement

    def as_record(self) -> dict[str, object]:
        a = self.agreement
        return {
            "judge": self.judge,
            "qrels_source": self.qrels_source,
            "tau": self.tau,
            "labels": list(a.labels),
            "confusion": a.confusion.tolist(),  # rows = imported grade, columns = computed
            "n": a.n,
            "exact_match": a.exact_match,
            "only_computed": a.only_computed,
            "only_imported": a.only_imported,
        }


def required_grade_agreement(
    collection: Collection,
    judge: str | None = None,
    tau: float = 3.0,
    qrels_source: str | None = None,
    missing_as_zero: bool = False,
) -> RequiredAgreement:
    """Greedy required-subset grades from the judge's ratings against the imported grades."""
    judge_info = resolve_judge(collection, judge)
    source = resolve_qrels_source(collection, qrels_source)
    if judge_info is None or source is None:
        missing = "passage judgments" if judge_info is None else "passage qrels"
        raise EvaluationInputError(f"collection {collection.name!r} has no {missing} to compare")
    data = load_collection(collection, judge_info, source, runs=[])
    subset = select_required(
        data.ratings, data.passage_valid, data.question_valid, tau, missing_as_zero
    )
    judged = ~np.isnan(data.ratings).all(axis=2)
    computed: dict[str, int] = {}
    imported: dict[str, int] = {}
    for i, topic in enumerate(data.topic_names):
        # Only rated passages get a computed grade, as in the oracle the evaluation builds.
        for row in np.flatnonzero(judged[i] & (subset.grades[i] > 0)):
            computed[f"{topic}\t{data.row_passage[i, row]}"] = int(subset.grades[i, row])
        for passage_id, grade in data.qrels[i].items():
            imported[f"{topic}\t{passage_id}"] = int(grade)
    return RequiredAgreement(judge_info.name, source, tau, grade_agreement(computed, imported))
