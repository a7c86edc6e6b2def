"""A collection's DENSE figures: DSE distribution, accuracy per DSE bin (Figure 3), AUROC and
AUARC of DSE for predicting wrong answers (Table 1), uncertain share per run, and what
refinement changed. Computed from stored rows only."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from crux_app.models import Collection, Run
from evaluation.dense.method.metrics import accuracy_by_bin, auarc, auroc
from evaluation.dense.models import DenseResult
from evaluation.dense.stored_results import latest_results


@dataclass
class RunSummary:
    run: str
    k: int
    n: int
    uncertain: int
    mean_dse: float
    n_gold: int
    accuracy: float | None
    final_accuracy: float | None
    auroc: float | None
    auarc: float | None
    bins: list[dict[str, Any]] = field(default_factory=list)

    @property
    def uncertain_share(self) -> float:
        return self.uncertain / self.n if self.n else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "uncertain_share": self.uncertain_share}


def _mean(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise(rows: list[DenseResult], run: str, k: int) -> RunSummary:
    graded = [r for r in rows if r.correct is not None]
    dse = [r.dse for r in graded]
    correct = [bool(r.correct) for r in graded]
    final = [bool(r.final_correct) for r in rows if r.final_correct is not None]
    return RunSummary(
        run=run,
        k=k,
        n=len(rows),
        uncertain=sum(r.uncertain for r in rows),
        mean_dse=sum(r.dse for r in rows) / len(rows) if rows else 0.0,
        n_gold=len(graded),
        accuracy=_mean(correct),
        final_accuracy=_mean(final),
        auroc=auroc(dse, correct) if graded else None,
        auarc=auarc(dse, correct) if graded else None,
        bins=[b.as_dict() for b in accuracy_by_bin(dse, correct)] if graded else [],
    )


def collection_summary(collection: Collection, run: Run | None = None) -> list[RunSummary]:
    """One summary per (run, k) with stored rows."""
    groups: dict[tuple[str, int], list[DenseResult]] = defaultdict(list)
    for row in latest_results(collection, run):
        groups[(row.run.name, row.k)].append(row)
    return [summarise(rows, name, k) for (name, k), rows in sorted(groups.items())]


def dse_histogram(summaries: list[RunSummary], rows: list[DenseResult]) -> dict[str, Any]:
    """A plotly figure: DSE histogram per (run, k)."""
    by_group: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_group[f"{r.run.name}@{r.k}"].append(r.dse)
    data = [
        {"type": "histogram", "name": name, "x": values, "xbins": {"start": 0, "size": 0.1},
         "opacity": 0.7}
        for name, values in sorted(by_group.items())
    ]  # fmt: skip
    layout = {
        "barmode": "overlay",
        "xaxis": {"title": {"text": "DSE"}},
        "yaxis": {"title": {"text": "questions"}},
        "height": 320,
        "margin": {"t": 20, "b": 50, "l": 50, "r": 10},
    }
    return {"data": data, "layout": layout}


def accuracy_figure(summaries: list[RunSummary]) -> dict[str, Any] | None:
    """A plotly figure: accuracy per DSE bin per (run, k) (the paper's Figure 3)."""
    data = []
    for s in summaries:
        bins = [b for b in s.bins if b["n"]]
        if bins:
            data.append(
                {
                    "type": "bar",
                    "name": f"{s.run}@{s.k}",
                    "x": [b["label"] for b in bins],
                    "y": [b["accuracy"] for b in bins],
                    "text": [f"n={b['n']}" for b in bins],
                }
            )
    if not data:
        return None
    layout = {
        "barmode": "group",
        "xaxis": {"title": {"text": "DSE bin"}},
        "yaxis": {"title": {"text": "accuracy (lexical match)"}, "range": [0, 1]},
        "height": 320,
        "margin": {"t": 20, "b": 50, "l": 50, "r": 10},
    }
    return {"data": data, "layout": layout}
