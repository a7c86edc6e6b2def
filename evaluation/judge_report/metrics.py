"""The metrics the judge report compares two judges' run rankings by: its own nDCG@k (each
judge's passage grades, ``scores.ndcg_scores``) and every leaderboard column a method flags
``judge_report=True`` in a group with per-topic values (read under each judge's name).

This module names no method: a flagged column brings its key, label and basis. The report's own
nDCG keeps the key ``ndcg`` even where a method registers a column of that key (a leaderboard
nDCG reads one qrels source for every judge, which would compare a judge with itself).
"""

from __future__ import annotations

from dataclasses import dataclass

from crux_app.inputs import EvaluationInputError
from evaluation.leaderboard.columns import judge_report_columns

NDCG = "ndcg"


@dataclass(frozen=True)
class Metric:
    key: str
    label: str  # "{k}" is replaced by the report's k
    basis: str = ""  # whose labels the values rest on (the report's metric line)

    def label_for(self, k: int) -> str:
        return self.label.replace("{k}", str(k))

    @property
    def choice_label(self) -> str:
        """The label in the page's selector, where k is not chosen yet."""
        return self.label.replace("@{k}", "@k").replace("{k}", "k")


OWN_NDCG = Metric(
    NDCG,
    "nDCG@{k}",
    "under each judge's own grades: its passage qrels when it has them, else its highest "
    "rating of a passage over the sub-questions (not a shared qrels source)",
)


def metrics() -> dict[str, Metric]:
    """Key -> metric: nDCG first, then the flagged columns in the leaderboard's order (a key
    offered twice keeps its first column)."""
    found = {NDCG: OWN_NDCG}
    for column in judge_report_columns():
        found.setdefault(column.key, Metric(column.key, column.label, column.judge_basis))
    return found


def metric_keys() -> tuple[str, ...]:
    return tuple(metrics())


def metric_named(key: str) -> Metric:
    found = metrics()
    if key not in found:
        raise EvaluationInputError(f"metric must be one of {', '.join(found)}, got {key!r}")
    return found[key]
