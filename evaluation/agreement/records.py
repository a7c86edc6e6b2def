"""The rows of an agreement report: a statistic with its task and the judges involved."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evaluation.agreement.statistics import Stat

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
