"""Say when a judge says nothing: checks on plain numbers that find a degenerate judge or
score, each returning a ``JudgeWarning`` that names who and gives the figures (or None).

A warning never replaces the numbers it is about: pages show it beside them and link to them.
The checks:

- nearly constant ratings: one value on more than ``CONSTANT_SHARE`` of the items, or a
  normalised entropy of the rating histogram under ``ENTROPY_FLOOR`` (0: every item gets the
  same rating, 1: every rating equally often), on at least ``MIN_ITEMS`` parsed ratings;
- unparsable outputs above ``UNPARSABLE_SHARE`` of a judge's outputs;
- every run tied on a metric (at least two runs with a value);
- agreement whose confidence interval includes chance (``CHANCE``: 0 for kappa, alpha and
  rank correlations);
- no context helps: every Delta (e.g. Delta-SePer) <= 0, the gold context's included;
- every question uncertain, or none (e.g. DENSE's DSE above its threshold);
- a score that is the same everywhere (every run and k, e.g. LLM-retEval@k at 1.0) while a
  score it should follow (answer accuracy) differs.

No Django, no model: plain sequences and mappings in, dataclasses out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

# The thresholds and the spread are the default-judge rule's too (crux_app.judge_choice).
from crux_app.vocabulary import (
    CONSTANT_SHARE,
    ENTROPY_FLOOR,
    MIN_ITEMS,
    RATING_LEVELS,
    nearly_constant,
    spread,
)

UNPARSABLE_SHARE = 0.1  # unparsable outputs above this share of a judge's outputs
CHANCE = 0.0  # chance level of kappa, alpha and rank correlations
SHOWN_VALUES = 5  # values quoted in a message; the rest are counted

CONSTANT = "constant_ratings"
UNPARSABLE = "unparsable_outputs"
TIED = "tied_runs"
CHANCE_LEVEL = "chance_agreement"
NO_GAIN = "no_context_gain"
UNIFORM = "uniform_uncertainty"
SAME = "same_everywhere"
CEILING = 1.0  # a score's largest value (a share of questions)
TITLES = {
    CONSTANT: "nearly constant",
    UNPARSABLE: "unparsable outputs",
    TIED: "runs tied",
    CHANCE_LEVEL: "chance agreement",
    NO_GAIN: "no context helps",
    UNIFORM: "uncertainty says nothing",
    SAME: "same value everywhere",
}


@dataclass(frozen=True)
class JudgeWarning:
    """One plain statement about a judge (or the models behind a score), with its figures;
    ``link`` points at the numbers it is about (pages fill it in)."""

    kind: str
    judge: str
    message: str
    figures: Mapping[str, object] = field(default_factory=dict)
    link: str = ""
    link_text: str = "see the numbers"

    @property
    def title(self) -> str:
        return TITLES.get(self.kind, self.kind)

    def linked(self, link: str, text: str | None = None) -> JudgeWarning:
        return replace(self, link=link, link_text=text or self.link_text)

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "judge": self.judge,
            "message": self.message,
            "figures": dict(self.figures),
        }


def linked(
    warnings: Iterable[JudgeWarning], link: str, text: str | None = None
) -> list[JudgeWarning]:
    return [w.linked(link, text) for w in warnings]


def _percent(share: float) -> str:
    """A share as a whole percentage that never rounds a part up to 100% or down to 0%."""
    value = 100 * share
    if 0 < value < 1:
        return "<1%"
    if 99 < value < 100:
        return ">99%"
    return f"{value:.0f}%"


def _number(value: float) -> str:
    return f"{value:g}" if float(value).is_integer() else f"{value:.4g}"


def ratings_histogram(ratings: Iterable[float | None]) -> dict[float, int]:
    """value -> count of parsed ratings (None and NaN are left out)."""
    return dict(Counter(r for r in ratings if r is not None and not math.isnan(r)))


def constant_ratings(
    judge: str,
    counts: Mapping[float, int],
    *,
    scope: str = "",
    levels: int = RATING_LEVELS,
    share: float = CONSTANT_SHARE,
    entropy_floor: float = ENTROPY_FLOOR,
    min_items: int = MIN_ITEMS,
) -> JudgeWarning | None:
    """A warning when one value has more than ``share`` of the ratings or the normalised
    entropy is under ``entropy_floor`` (``scope`` says where, e.g. "on topic t1")."""
    s = spread(counts, levels)
    rule = {"levels": levels, "share": share, "entropy_floor": entropy_floor}
    if s.top is None or s.share is None or s.entropy is None:
        return None
    if not nearly_constant(counts, min_items=min_items, **rule):
        return None
    where = f" {scope}" if scope else ""
    histogram = ", ".join(f"{_number(v)}: {c}" for v, c in s.counts.items())
    message = (
        f"{judge} gave {_number(s.top)} to {s.top_count} of {s.n} items{where} "
        f"({_percent(s.share)}); normalised entropy {s.entropy:.2f} of its ratings ({histogram}), "
        "where 0 is one value and 1 every value equally often (warned under "
        f"{entropy_floor:.2f} or above {share:.0%} on one value): they barely tell the items apart."
    )
    figures = {
        "value": s.top,
        "count": s.top_count,
        "items": s.n,
        "share": s.share,
        "entropy": s.entropy,
        "histogram": {_number(v): c for v, c in s.counts.items()},
    }
    return JudgeWarning(CONSTANT, judge, message, figures)


def unparsable_outputs(
    judge: str,
    n_unparsable: int,
    n_outputs: int,
    *,
    scope: str = "",
    share: float = UNPARSABLE_SHARE,
) -> JudgeWarning | None:
    """A warning when more than ``share`` of the judge's outputs could not be parsed."""
    if n_outputs <= 0 or n_unparsable <= 0 or n_unparsable / n_outputs <= share:
        return None
    where = f" {scope}" if scope else ""
    fraction = n_unparsable / n_outputs
    message = (
        f"{n_unparsable} of {n_outputs} outputs of {judge}{where} ({_percent(fraction)}) could "
        f"not be parsed into a rating (warned above {share:.0%}); they are left out of every "
        "figure, never read as 0."
    )
    figures = {"unparsable": n_unparsable, "outputs": n_outputs, "share": fraction}
    return JudgeWarning(UNPARSABLE, judge, message, figures)


def rating_warnings(
    judge: str, counts: Mapping[float, int], n_unparsable: int, scope: str = ""
) -> list[JudgeWarning]:
    """Nearly constant ratings and too many unparsable outputs of one judge on a scope: what
    every page showing a judge's numbers says beside them
    (``templates/_partials/judge_warnings.html``)."""
    n_outputs = sum(counts.values()) + n_unparsable
    found = [
        constant_ratings(judge, counts, scope=scope),
        unparsable_outputs(judge, n_unparsable, n_outputs, scope=scope),
    ]
    return [w for w in found if w is not None]


class RatingCounts(Protocol):
    """A judge with its rating histogram (e.g. ``crux_app.inputs.JudgeInfo``)."""

    @property
    def name(self) -> str: ...

    @property
    def rating_counts(self) -> Sequence[tuple[float, int]]: ...

    @property
    def n_unparsable(self) -> int: ...


def judges_rating_warnings(
    judges: Iterable[RatingCounts], scope: str = "", names: Iterable[str] | None = None
) -> list[JudgeWarning]:
    """``rating_warnings`` of each judge (only those named in ``names`` when given), once each."""
    wanted = None if names is None else set(names)
    out: list[JudgeWarning] = []
    for judge in judges:
        if wanted is None or judge.name in wanted:
            counts = dict(judge.rating_counts)
            out += rating_warnings(judge.name, counts, judge.n_unparsable, scope)
    return out


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def tied_runs(
    metric: str, values: Mapping[str, float | None], *, judge: str = ""
) -> JudgeWarning | None:
    """A warning when at least two runs have a value of ``metric`` and all of them the same
    (runs without a value are counted, not compared)."""
    defined = {name: float(v) for name, v in values.items() if v is not None and not math.isnan(v)}
    if len(defined) < 2:
        return None
    first = next(iter(defined.values()))
    if not all(_same(v, first) for v in defined.values()):
        return None
    undefined = len(values) - len(defined)
    rest = f"; undefined for {undefined} other run(s)" if undefined else ""
    under = f" under {judge}" if judge else ""
    message = (
        f"Every run scores {first:.4f} on {metric}{under} ({len(defined)} runs{rest}): "
        "the metric does not tell the runs apart."
    )
    figures = {"metric": metric, "value": first, "runs": len(defined), "undefined": undefined}
    return JudgeWarning(TIED, judge, message, figures)


@dataclass(frozen=True)
class Interval:
    """An agreement figure with its confidence interval (None where undefined)."""

    statistic: str  # as shown, e.g. "Cohen's kappa"
    value: float | None
    low: float | None
    high: float | None
    n: int  # items

    def includes(self, level: float) -> bool:
        if self.value is None or self.low is None or self.high is None:
            return False
        return self.low <= level <= self.high


def chance_interval(
    judge: str,
    reference: str,
    intervals: Sequence[Interval],
    *,
    chance: float = CHANCE,
    scope: str = "",
) -> JudgeWarning | None:
    """A warning when the confidence interval of an agreement figure of the judge with the
    reference includes the chance level (undefined figures and ones without an interval
    never do); one warning lists every such figure."""
    hits = [i for i in intervals if i.includes(chance)]
    if not hits:
        return None
    where = f" ({scope})" if scope else ""
    listed = "; ".join(
        f"{i.statistic} = {i.value:.3f} [{i.low:.3f}, {i.high:.3f}] on {i.n} items" for i in hits
    )
    each = "the interval includes" if len(hits) == 1 else "each interval includes"
    message = (
        f"{judge} vs {reference}{where}: {listed}; {each} chance ({_number(chance)}), so this "
        "agreement is not shown to be better than chance."
    )
    figures = {
        "reference": reference,
        "figures": [
            {"statistic": i.statistic, "value": i.value, "ci_low": i.low, "ci_high": i.high,
             "n": i.n}
            for i in hits
        ],
    }  # fmt: skip
    return JudgeWarning(CHANCE_LEVEL, judge, message, figures)


def no_context_gain(
    who: str,
    deltas: Sequence[float | None],
    gold: Sequence[float | None],
    *,
    measure: str = "Delta",
    scope: str = "",
) -> JudgeWarning | None:
    """A warning when every Delta (of each context, ``gold`` the gold contexts' among them or
    beside them) is <= 0 and there is a gold context's Delta: not even the gold passage made
    the right answer more likely."""
    gold_values = [float(g) for g in gold if g is not None and not math.isnan(g)]
    values = [float(d) for d in deltas if d is not None and not math.isnan(d)]
    if not gold_values or not values or max(values + gold_values) > 0:
        return None
    where = f" {scope}" if scope else ""
    gold_text = ", ".join(f"{g:.3f}" for g in gold_values[:SHOWN_VALUES])
    if len(gold_values) > SHOWN_VALUES:
        gold_text += f" and {len(gold_values) - SHOWN_VALUES} more"
    message = (
        f"{who}: every {measure}{where} is <= 0 ({len(values)} contexts, the highest "
        f"{max(values):.3f}), the gold passages' included ({gold_text}): no context, not even "
        "the gold one, made a right answer more likely."
    )
    figures = {"measure": measure, "contexts": len(values), "max": max(values), "gold": gold_values}
    return JudgeWarning(NO_GAIN, who, message, figures)


def uniform_uncertainty(
    who: str,
    uncertain: Sequence[bool],
    *,
    what: str = "uncertain",
    scope: str = "",
    min_items: int = 2,
) -> JudgeWarning | None:
    """A warning when at least ``min_items`` questions were scored and every one of them is
    ``what`` (uncertain), or none is."""
    n, hits = len(uncertain), sum(bool(u) for u in uncertain)
    if n < min_items or 0 < hits < n:
        return None
    where = f" {scope}" if scope else ""
    amount = f"all {n} questions" if hits == n else f"none of the {n} questions"
    message = (
        f"{who}: {amount}{where} {'are' if hits == n else 'is'} {what}: the uncertainty "
        "does not tell the questions apart."
    )
    return JudgeWarning(UNIFORM, who, message, {"questions": n, "uncertain": hits})


def same_everywhere(
    who: str,
    metric: str,
    values: Mapping[str, float | None],
    contrast: Mapping[str, float | None],
    contrast_name: str,
) -> JudgeWarning | None:
    """A warning when ``metric`` has one value on every row with one (rows: e.g. "bm25 k=3"),
    at least two rows or one at ``CEILING``, while ``contrast`` (a score of the same rows that
    it should follow, e.g. answer accuracy) differs from that value on some row."""
    defined = {k: float(v) for k, v in values.items() if v is not None and not math.isnan(v)}
    if not defined:
        return None
    first = next(iter(defined.values()))
    if not all(_same(v, first) for v in defined.values()):
        return None
    if len(defined) < 2 and not _same(first, CEILING):
        return None
    others = {
        k: float(v)
        for k, v in contrast.items()
        if k in defined and v is not None and not math.isnan(v)
    }
    differing = {k: v for k, v in others.items() if not _same(v, first)}
    if not differing:
        return None
    shown = ", ".join(f"{k}: {v:.3f}" for k, v in list(differing.items())[:SHOWN_VALUES])
    if len(differing) > SHOWN_VALUES:
        shown += f" and {len(differing) - SHOWN_VALUES} more"
    message = (
        f"{who}: {metric} is {first:.3f} on every one of {len(defined)} row(s) while "
        f"{contrast_name} differs ({shown}): the score does not tell the rows apart, and "
        f"disagrees with {contrast_name}."
    )
    figures = {
        "metric": metric,
        "value": first,
        "rows": len(defined),
        "contrast": contrast_name,
        "differing": differing,
    }
    return JudgeWarning(SAME, who, message, figures)
