"""The collection leaderboard: every registered column group's values per run as a sortable
table, and the Kendall tau between the run rankings of every two ranked columns (with its plotly
heatmap figure). The leaderboard names no method: its columns and panels come from
``evaluation.leaderboard.columns``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from crux_app.models import Collection, Run
from evaluation.leaderboard.columns import Column, LeaderboardParams, columns, groups
from evaluation.leaderboard.depths import CellNote, DepthOption, Depths, collection_depths
from evaluation.shared.degenerate import JudgeWarning, tied_runs
from evaluation.shared.metric_agreement import (
    MIN_RANKED,
    AgreementMatrix,
    kendall_matrix,
    not_measurable,
)

TABLE_ANCHOR = "#leaderboard-table"


@dataclass(frozen=True)
class Cell:
    text: str
    css: str = "num"
    note: str = ""  # what the value rests on (topics behind it), shown under it
    title: str = ""


@dataclass(frozen=True)
class Panel:
    template: str
    context: dict[str, Any]


@dataclass(frozen=True)
class Leaderboard:
    rows: list[dict[str, Any]]  # {"run": name, column key: value...}, sorted
    sort: str
    descending: bool
    agreement: AgreementMatrix
    labels: dict[str, str]
    columns: tuple[str, ...]  # shown columns in display order
    above: list[Panel] = field(default_factory=list)
    below: list[Panel] = field(default_factory=list)
    warnings: list[JudgeWarning] = field(default_factory=list)
    depths: Depths = field(default_factory=lambda: Depths({}, 0))
    k: int | str = 10

    def sorted_by(self, sort: str, descending: bool, names: list[str]) -> Leaderboard:
        """The same board sorted by another key, exactly as ``build_leaderboard`` sorts
        (``names``: the runs in the order it read them, which undefined values keep)."""
        position = {name: i for i, name in enumerate(names)}
        records = sorted(self.rows, key=lambda r: position[r["run"]])
        rows = sorted_records(records, sort, descending)
        return replace(self, rows=rows, sort=sort, descending=descending)

    def table(self) -> list[tuple[dict[str, Any], list[Any]]]:
        """(record, values in ``columns`` order) per row."""
        return [(r, [r.get(c) for c in self.columns]) for r in self.rows]

    def cell_rows(self) -> list[tuple[dict[str, Any], list[Cell]]]:
        """(record, rendered cells in ``columns`` order) per row."""
        by_key = {c.key: c for c in columns()}
        return [
            (r, [self._cell(by_key[c], r["run"], r.get(c)) for c in self.columns])
            for r in self.rows
        ]

    def _cell(self, column: Column, run: str, value: Any) -> Cell:
        shown = cell(column, value)
        note: CellNote = self.depths.note(column, run, self.k, value)
        return Cell(shown.text, shown.css, note.text, note.title)

    def depth_options(self) -> list[DepthOption]:
        """The depths at which the columns that report theirs have values."""
        return self.depths.options(columns())

    @property
    def any_tau(self) -> bool:
        """Whether any pair of columns has a defined tau (one run: none has)."""
        return any(t.tau is not None for t in self.agreement.taus.values())

    @property
    def may_chart(self) -> bool:
        """Whether some selection can draw the tau heatmap: the collection has at least
        ``MIN_RANKED`` runs (the page loads plotly only then; the selectors never add runs)."""
        return len(self.rows) >= MIN_RANKED

    @property
    def tau_not_measurable(self) -> str:
        """Why no tau is shown when the runs are too few to measure ranking agreement ("")."""
        n = self.agreement.too_few_runs
        return not_measurable(n) if n is not None else ""

    def tau_rows(self) -> list[tuple[str, list[Any]]]:
        """(column label, TauResult per column) rows of the agreement matrix."""
        names = self.agreement.names
        return [(self.labels[a], [self.agreement.taus[(a, b)] for b in names]) for a in names]


def cell(column: Column, value: Any) -> Cell:
    if column.display == "text":
        text = column.format(value) if column.format and value is not None else str(value or "")
        return Cell(text, "small")
    if value is None:
        return Cell("–")
    if column.display == "count":
        return Cell(str(int(value)))
    return Cell(f"{value:.4f}")


def sort_keys() -> tuple[str, ...]:
    """Every sortable column: the run name and the shown numeric columns."""
    return ("run", *(c.key for c in columns() if c.shown and c.sortable))


def default_sort() -> str:
    """The first ranked numeric column (the run name when there is none)."""
    ranked = [c.key for c in columns() if c.shown and c.sortable and c.ranked != "never"]
    return ranked[0] if ranked else "run"


def metric_labels(k: int | str) -> dict[str, str]:
    return {c.key: c.label_for(k) for c in columns()}


def sorted_records(
    records: list[dict[str, Any]], sort: str, descending: bool
) -> list[dict[str, Any]]:
    """Records by one key; undefined values always last."""
    defined = [r for r in records if r.get(sort) is not None]
    undefined = [r for r in records if r.get(sort) is None]
    defined.sort(key=lambda r: (r[sort], r["run"]), reverse=descending)
    return defined + undefined


def agreement_matrix(values: dict[str, dict[str, Any]]) -> AgreementMatrix:
    """Kendall tau between every two ranked columns' run rankings: an ``always`` column even
    when undefined, a ``defined`` one once at least two runs have a value."""
    table: dict[str, dict[str, float | None]] = {}
    for column in columns():
        column_values = values.get(column.key, {})
        defined = sum(v is not None for v in column_values.values())
        if column.ranked == "always" or (column.ranked == "defined" and defined >= 2):
            table[column.key] = column_values
    return kendall_matrix(table, order=list(table))


def tie_warnings(
    values: dict[str, dict[str, Any]], labels: dict[str, str], judges: dict[str, str]
) -> list[JudgeWarning]:
    """Every shown, ranked numeric column on which all runs with a value tie (``judges``:
    column key -> the judge its group rests on)."""
    found = []
    for column in columns():
        if column.shown and column.display == "number" and column.ranked != "never":
            judge = judges.get(column.key, "")
            warning = tied_runs(labels[column.key], values.get(column.key, {}), judge=judge)
            if warning is not None:
                found.append(warning.linked(TABLE_ANCHOR, "the table"))
    return found


def run_names(collection: Collection) -> list[str]:
    return list(
        Run.objects.filter(collection=collection).order_by("name").values_list("name", flat=True)
    )


def build_leaderboard(
    collection: Collection,
    params: LeaderboardParams,
    sort: str | None = None,
    descending: bool = True,
    depths: Depths | None = None,
) -> Leaderboard:
    """Every group's values for the collection's runs (EvaluationInputError propagates);
    ``depths``: the columns' stored depths, when the caller has read them already."""
    names = run_names(collection)
    values: dict[str, dict[str, Any]] = {}
    above: list[Panel] = []
    below: list[Panel] = []
    warnings: list[JudgeWarning] = []
    judges: dict[str, str] = {}
    for group in groups():
        computed = group.compute(collection, params, names)
        warnings += computed.warnings
        for column in group.columns:
            values[column.key] = {n: computed.values.get(column.key, {}).get(n) for n in names}
            judges[column.key] = computed.judge
        panel = {**computed.panel, "collection": collection, "params": params}
        if group.panel_above:
            above.append(Panel(group.panel_above, panel))
        if group.panel_below:
            below.append(Panel(group.panel_below, panel))
    shown = tuple(c.key for c in columns() if c.shown)
    records = [{"run": n, **{key: values[key][n] for key in shown}} for n in names]
    sort = sort or default_sort()
    labels = metric_labels(params.k)
    return Leaderboard(
        rows=sorted_records(records, sort, descending),
        sort=sort,
        descending=descending,
        agreement=agreement_matrix(values),
        labels=labels,
        columns=shown,
        above=above,
        below=below,
        warnings=warnings + tie_warnings(values, labels, judges),
        depths=depths if depths is not None else collection_depths(collection, names),
        k=params.k,
    )


def tau_heatmap(board: Leaderboard) -> dict[str, Any]:
    """The plotly figure (a plain dict) of the Kendall tau matrix; undefined cells are blank."""
    names = board.agreement.names
    labels = [board.labels[n] for n in names]
    z, text, hover = [], [], []
    for a in names:
        z_row, text_row, hover_row = [], [], []
        for b in names:
            result = board.agreement.taus[(a, b)]
            z_row.append(result.tau)
            text_row.append("–" if result.tau is None else f"{result.tau:.2f}")
            detail = (
                f"τ = {result.tau:.3f} (n = {result.n} runs)"
                if result.tau is not None
                else f"undefined: {result.reason}"
            )
            hover_row.append(f"{board.labels[a]} vs {board.labels[b]}<br>{detail}")
        z.append(z_row)
        text.append(text_row)
        hover.append(hover_row)
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": labels,
                "y": labels,
                "zmin": -1,
                "zmax": 1,
                "colorscale": "RdBu",
                "text": text,
                "texttemplate": "%{text}",
                "customdata": hover,
                "hovertemplate": "%{customdata}<extra></extra>",
                "colorbar": {"title": {"text": "Kendall τ"}},
            }
        ],
        "layout": {
            "margin": {"l": 130, "r": 20, "t": 20, "b": 110},
            "height": 120 + 42 * len(names),
            "yaxis": {"autorange": "reversed"},
            "xaxis": {"tickangle": -40},
        },
    }
