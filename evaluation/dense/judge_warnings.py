"""Say when DENSE says nothing: under one run, depth and pair of models, every question is
uncertain, or none is. The check is ``evaluation.shared.degenerate``'s."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.dense.models import DenseResult
from evaluation.shared.degenerate import JudgeWarning, uniform_uncertainty

QUESTIONS_ANCHOR = "#dense-questions"


def uncertainty_warnings(rows: Sequence[DenseResult]) -> list[JudgeWarning]:
    """One warning per (run, k, generator, NLI model, threshold) whose questions are all
    uncertain or all certain (at least two questions)."""
    groups: dict[tuple[str, int, str, str, object], list[bool]] = {}
    for row in rows:
        threshold = row.params.get("threshold") if isinstance(row.params, dict) else None
        key = (row.run.name, row.k, row.generator, row.nli, threshold)
        groups.setdefault(key, []).append(bool(row.uncertain))
    out = []
    for (run, k, generator, nli, threshold), uncertain in sorted(
        groups.items(), key=lambda item: item[0][:4]
    ):
        who = f"DENSE with generator {generator} and NLI {nli}"
        number = isinstance(threshold, int | float) and not isinstance(threshold, bool)
        what = f"uncertain (DSE > {threshold:g})" if number else "uncertain"
        warning = uniform_uncertainty(who, uncertain, what=what, scope=f"of {run} top-{k}")
        if warning is not None:
            out.append(warning.linked(QUESTIONS_ANCHOR, "the questions"))
    return out
