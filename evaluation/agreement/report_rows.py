"""The rows of an agreement report: a statistic with its task and the judges involved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evaluation.agreement.method.label_agreement import Stat

# Keys every exported record has, in this order.
RECORD_KEYS = (
    "task",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "undefined",
    "note",
    "n_pairs",
    "judges",
)

# How each statistic reads on the page, in the HTML report and in the warnings.
STAT_LABELS = {
    "percent_agreement": "Percent agreement",
    "percent_agreement_at_tau": "Percent agreement (answerable at τ)",
    "fleiss_kappa": "Fleiss' κ",
    "krippendorff_alpha_nominal": "Krippendorff's α (nominal)",
    "krippendorff_alpha_ordinal": "Krippendorff's α (ordinal)",
    "krippendorff_alpha_interval": "Krippendorff's α (interval)",
    "cohen_kappa": "Cohen's κ",
    "cohen_kappa_quadratic": "Cohen's κ (quadratic weights, 0-5)",
    "cohen_kappa_at_tau": "Cohen's κ (answerable at τ)",
    "spearman": "Spearman ρ",
    "kendall_tau_b": "Kendall τ-b",
    "precision_answerable": "Precision of “answerable”",
    "recall_answerable": "Recall of “answerable”",
    "f1_answerable": "F1 of “answerable”",
    "precision_unanswerable": "Precision of “unanswerable”",
    "recall_unanswerable": "Recall of “unanswerable”",
    "f1_unanswerable": "F1 of “unanswerable”",
    "items": "Items labelled",
    "median_time_ms": "Median time per item (ms)",
    "agreement_with_majority": "Agreement with the others' majority",
    "gold_accuracy": "Gold accuracy",
}
DIFFERENCE = "_difference"


def statistic_label(name: str) -> str:
    if name.endswith(DIFFERENCE):
        return STAT_LABELS.get(name.removesuffix(DIFFERENCE), name) + ": difference a − b"
    return STAT_LABELS.get(name, name)


@dataclass(frozen=True)
class Record:
    task: str
    stat: Stat
    judges: tuple[str, ...]
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def statistic(self) -> str:
        return self.stat.statistic

    @property
    def value(self) -> float | None:
        return self.stat.value

    def as_dict(self) -> dict[str, object]:
        """Flat form for JSON and CSV: the common keys, then the record's own ones."""
        s = self.stat
        out: dict[str, object] = {
            "task": self.task,
            "statistic": s.statistic,
            "value": s.value,
            "ci_low": s.ci_low,
            "ci_high": s.ci_high,
            "n": s.n,
            "undefined": s.undefined,
            "note": s.note,
            "n_pairs": s.n_pairs,
            "judges": list(self.judges),
        }
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class CoveragePoint:
    """One report's coverage by the humans and by one LLM judge (None = undefined)."""

    output_id: int
    output: str
    system: str
    topic_id: int
    topic: str
    judge: str
    human: float | None
    machine: float | None
    n_humans: int
    answerable: int
    machine_undefined: str | None = None  # why the judge's coverage is undefined

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)
