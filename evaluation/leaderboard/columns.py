"""Every per-run figure of the leaderboard comes from a registered column group.

A method declares a ``ColumnGroup`` (several columns computed together, as CRUX's metrics are)
or a ``RunColumn`` (one column) in its ``MethodConfig`` (crux_app.method_config); the
leaderboard adds their columns, lets the numeric ones be sorted, ranks runs by them in the
Kendall tau matrix and renders a group's panels. This module names no method. A group reads
stored rows only: a page never runs a model.

A column whose values exist only at the depths a job stored (not computed at any k) may report
them (``k_topics``: depth -> run -> topics with a value there): the leaderboard then lists the
depths that have data, defaults to one of them and says how many topics are behind each cell.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from crux_app.inputs import EvaluationInputError, check_tau
from crux_app.read_parameters import K_ORACLE, TAU, K
from crux_app.registry import Registry

if TYPE_CHECKING:
    from crux_app.models import Collection
    from evaluation.shared.degenerate import JudgeWarning


@dataclass(frozen=True)
class LeaderboardParams:
    """What every column reads: judge, relevance threshold tau, depth k, qrels source."""

    judge: str | None = None  # judge name; None = crux_app.judge_choice's default
    tau: float = TAU.default  # the declared read side's (crux_app.read_parameters)
    k: int | str = K.default  # or K_ORACLE (|O|, each topic's oracle size)
    qrels_source: str | None = None  # None = the source with the most rows
    missing_as_zero: bool = False

    def __post_init__(self) -> None:
        if self.k != K_ORACLE and not (isinstance(self.k, int) and self.k >= 1):
            raise EvaluationInputError(f"k must be an integer >= 1 or {K_ORACLE!r}, got {self.k!r}")
        try:
            check_tau(self.tau)
        except ValueError as error:
            raise EvaluationInputError(str(error)) from None


# (collection, run names) -> depth k -> run name -> topics with a stored value at that depth
KTopics = Callable[["Collection", list[str]], dict[int, dict[str, int]]]

Display = Literal["number", "count", "text"]
# always: in the Kendall matrix even when undefined; defined: once >= 2 runs have a value
Ranked = Literal["always", "defined", "never"]


@dataclass(frozen=True)
class Column:
    key: str
    label: str  # "{k}" is replaced by the leaderboard's k
    description: str = ""
    display: Display = "number"
    ranked: Ranked = "defined"
    shown: bool = True  # False: only in the Kendall matrix
    format: Callable[[Any], str] | None = None  # a text column's cell text
    k_topics: KTopics | None = None  # the depths with stored values (None: computed at any k)
    # True: a run with no value at the leaderboard's k shows its value at ``best_covered_k``.
    k_fallback: bool = False
    # True: offered as a metric of the judge report, under this key and label, which compares
    # the run rankings two judges induce through the group's ``per_topic`` values read under
    # each judge's name (a group without ``per_topic`` offers nothing there).
    judge_report: bool = False
    judge_basis: str = ""  # whose labels its per-topic values rest on, as the report says it

    def label_for(self, k: int | str) -> str:
        return self.label.replace("{k}", str(k))

    @property
    def sortable(self) -> bool:
        return self.display != "text"


@dataclass
class GroupValues:
    values: dict[str, dict[str, Any]]  # column key -> run name -> value (None: undefined)
    panel: dict[str, Any] = field(default_factory=dict)  # the context of the group's panels
    # Degenerate-judge warnings about what the group's numbers rest on (shown above the table),
    # and the judge its columns rest on, named when every run ties on one of them.
    warnings: list[JudgeWarning] = field(default_factory=list)
    judge: str = ""


# (collection, params, run names) -> the group's values
Compute = Callable[["Collection", LeaderboardParams, list[str]], GroupValues]
# (collection, params, run names) -> column key -> (run name, topic id) -> value
PerTopic = Callable[
    ["Collection", LeaderboardParams, list[str]], dict[str, dict[tuple[str, int], float | None]]
]


@dataclass(frozen=True)
class ColumnGroup:
    key: str
    columns: tuple[Column, ...]
    compute: Compute
    # Keys of the groups it comes after (else: in declaration order; the groups of one column
    # come after the wider groups, see _comes_after).
    after: tuple[str, ...] = ()
    panel_above: str | None = None  # templates rendered with the group's panel context
    panel_below: str | None = None
    per_topic: PerTopic | None = None  # per-topic values, for correlations with other figures
    # The judges (names) its per-topic values exist under in a collection, besides the judges
    # with passage ratings: the judge report offers them for its ``judge_report`` columns.
    judges: Callable[[Collection], list[str]] | None = None


# (collection, params, run names) -> run name -> value (None: not computed for that run)
ColumnValues = Callable[["Collection", LeaderboardParams, list[str]], dict[str, float | None]]


@dataclass(frozen=True)
class RunColumn:
    """A group of one numeric column."""

    key: str
    label: str
    values: ColumnValues
    description: str = ""
    k_topics: KTopics | None = None  # see Column
    k_fallback: bool = False
    after: tuple[str, ...] = ()  # see ColumnGroup

    def label_for(self, k: int | str) -> str:
        return self.label.replace("{k}", str(k))

    def as_group(self) -> ColumnGroup:
        def compute(collection, params, run_names) -> GroupValues:
            return GroupValues({self.key: self.values(collection, params, run_names)})

        column = Column(
            self.key,
            self.label,
            self.description,
            k_topics=self.k_topics,
            k_fallback=self.k_fallback,
        )
        return ColumnGroup(key=self.key, columns=(column,), compute=compute, after=self.after)


def _as_group(entry: ColumnGroup | RunColumn) -> ColumnGroup:
    return entry.as_group() if isinstance(entry, RunColumn) else entry


def _comes_after(group: ColumnGroup) -> tuple[str, ...]:
    """The groups a group follows: those it names in ``after``, and, for a group of one column
    (a ``RunColumn``), every wider group too, so that the wide groups lead the table."""
    if len(group.columns) > 1:
        return group.after
    return group.after + tuple(key for key, g in COLUMN_GROUPS.items() if len(g.columns) > 1)


COLUMN_GROUPS: Registry[ColumnGroup] = Registry(
    "leaderboard column group", (ColumnGroup, RunColumn), needs=_comes_after, prepare=_as_group
)


def registry_token() -> tuple[int, tuple[str, ...]]:
    """What identifies the registered groups, for a cache key: every change and the keys."""
    return COLUMN_GROUPS.generation, tuple(g.key for g in groups())


def groups() -> list[ColumnGroup]:
    return COLUMN_GROUPS.ordered()


def columns() -> list[Column]:
    return [c for g in groups() for c in g.columns]


def column_keys() -> tuple[str, ...]:
    return tuple(c.key for c in columns())


def column_values(
    collection: Collection,
    params: LeaderboardParams,
    run_names: list[str],
    exclude: Sequence[str] = (),
) -> dict[str, dict[str, Any]]:
    """Column key -> run name -> value (None where not computed) of every group but the
    excluded ones (a method printing its own figures beside the others')."""
    table: dict[str, dict[str, Any]] = {}
    for group in groups():
        if group.key in exclude:
            continue
        values = group.compute(collection, params, run_names).values
        for column in group.columns:
            column_values = values.get(column.key, {})
            table[column.key] = {name: column_values.get(name) for name in run_names}
    return table


def best_covered_k(topics_by_k: Mapping[int, int]) -> int | None:
    """The depth with the most topics (the deepest on a tie); where a ``k_fallback`` column
    reads a run that has no value at the leaderboard's k."""
    return max(topics_by_k, key=lambda k: (topics_by_k[k], k)) if topics_by_k else None


def judge_report_columns() -> list[Column]:
    """The columns offered to the judge report: flagged, in a group with per-topic values."""
    return [c for g in groups() if g.per_topic is not None for c in g.columns if c.judge_report]


def judge_report_judges(collection: Collection) -> list[str]:
    """The judges that groups with judge report columns have per-topic values under (each
    name once, in the groups' order)."""
    names: dict[str, None] = {}
    for group in groups():
        if group.judges is not None and any(c.judge_report for c in group.columns):
            names.update(dict.fromkeys(group.judges(collection)))
    return list(names)


def k_coverage(
    collection: Collection, run_names: list[str]
) -> dict[str, dict[int, dict[str, int]]]:
    """Column key -> depth -> run name -> topics, of every column that reports its depths."""
    return {c.key: c.k_topics(collection, run_names) for c in columns() if c.k_topics is not None}


def per_topic_values(
    collection: Collection, params: LeaderboardParams, run_names: list[str], keys: Sequence[str]
) -> dict[str, dict[tuple[str, int], float | None]]:
    """Per-(run, topic) values of the named columns, from the groups that provide them
    (a column no group gives per topic is missing from the result)."""
    out: dict[str, dict[tuple[str, int], float | None]] = {}
    for group in groups():
        if group.per_topic is None or not {c.key for c in group.columns} & set(keys):
            continue
        values = group.per_topic(collection, params, run_names)
        out.update({key: values[key] for key in keys if key in values})
    return out
