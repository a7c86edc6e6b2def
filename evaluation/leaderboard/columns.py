"""Per-run leaderboard columns contributed by other methods (Delta-SePer, DENSE's uncertain
share, LLM-retEval@k...), computed from their stored results.

An app registers a ``RunColumn`` in its ``AppConfig.ready``; the leaderboard adds one column
per registered entry, lets it be sorted, and ranks runs by it in the Kendall tau matrix. A
column's ``values`` reads stored rows only: a page never runs a model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crux_app.models import Collection
    from evaluation.crux.evaluate import EvaluationParams

# (collection, params, run names) -> run name -> value (None: not computed for that run).
ColumnValues = Callable[["Collection", "EvaluationParams", list[str]], dict[str, float | None]]


@dataclass(frozen=True)
class RunColumn:
    key: str
    label: str  # "{k}" is replaced by the leaderboard's k
    values: ColumnValues
    description: str = ""

    def label_for(self, k: int | str) -> str:
        return self.label.replace("{k}", str(k))


_COLUMNS: dict[str, RunColumn] = {}


def register_column(column: RunColumn) -> RunColumn:
    """Add (or replace, by key) a leaderboard column."""
    _COLUMNS[column.key] = column
    return column


def unregister_column(key: str) -> None:
    _COLUMNS.pop(key, None)


def run_columns() -> list[RunColumn]:
    return list(_COLUMNS.values())


def column_keys() -> tuple[str, ...]:
    return tuple(_COLUMNS)


def column_values(
    collection: Collection, params: EvaluationParams, run_names: list[str]
) -> dict[str, dict[str, float | None]]:
    """Registered column -> run name -> value (None where not computed), for every run."""
    table = {}
    for column in run_columns():
        values = column.values(collection, params, run_names)
        table[column.key] = {name: values.get(name) for name in run_names}
    return table
