"""Degenerate-judge warnings of the agreement report: a machine judge whose labels of a task are
nearly constant or often unparsable, and agreement with the humans whose confidence interval
includes chance. The links are anchors of the report itself, so they work in the page and in
the self-contained HTML file alike."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluation.agreement.label_tables import LabelTable
from evaluation.agreement.machine_agreement import POOLED
from evaluation.agreement.report_rows import Record, statistic_label
from evaluation.shared.degenerate import (
    Interval,
    JudgeWarning,
    chance_interval,
    constant_ratings,
    unparsable_outputs,
)

TASKS_ANCHOR = "#agreement-tasks"
HUMAN_VS_LLM_ANCHOR = "#human-vs-llm"
# Chance-corrected figures and rank correlations: 0 is what a judge guessing would get.
CHANCE_STATISTICS = (
    "cohen_kappa",
    "cohen_kappa_at_tau",
    "cohen_kappa_quadratic",
    "spearman",
    "kendall_tau_b",
)


def table_warnings(table: LabelTable) -> list[JudgeWarning]:
    """Each machine judge's labels of the table's task: nearly constant, or unparsable."""
    task, levels = table.source.key, len(table.source.categories)
    out: list[JudgeWarning | None] = []
    for m in table.machines():
        name = table.raters[m].name
        column = table.ratings[:, m]
        # value -> count, as ratings_histogram counts a list, without a Python loop per item.
        values, tally = np.unique(column[~np.isnan(column)], return_counts=True)
        counts = {float(v): int(c) for v, c in zip(values, tally, strict=True)}
        unparsable = table.unparsable.get(name, 0)
        scope = f"of task {task}"
        out.append(constant_ratings(name, counts, scope=scope, levels=levels))
        n_outputs = sum(counts.values()) + unparsable
        out.append(unparsable_outputs(name, unparsable, n_outputs, scope=scope))
    return [w.linked(TASKS_ANCHOR, "its labels per task") for w in out if w is not None]


def chance_warnings(records: Sequence[Record]) -> list[JudgeWarning]:
    """Per task and judge, the human-vs-judge figures against the main human reference (all
    annotators pooled, or the only one) whose interval includes chance."""
    groups: dict[tuple[str, str], dict[str, list[Record]]] = {}
    for r in records:
        reference = r.extra.get("reference")
        if reference is None or r.statistic not in CHANCE_STATISTICS:
            continue
        key = (r.task, str(r.extra.get("judge")))
        groups.setdefault(key, {}).setdefault(str(reference), []).append(r)
    out = []
    for (task, judge), by_reference in groups.items():
        # Several annotators always come with a pooled line; one comes alone.
        reference = POOLED if POOLED in by_reference else sorted(by_reference)[0]
        intervals = [
            Interval(statistic_label(r.statistic), r.value, r.stat.ci_low, r.stat.ci_high, r.stat.n)
            for r in by_reference[reference]
        ]
        warning = chance_interval(judge, reference, intervals, scope=f"task {task}")
        if warning is not None:
            out.append(warning.linked(HUMAN_VS_LLM_ANCHOR, "every figure"))
    return out
