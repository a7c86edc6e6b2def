"""Prediction-powered inference (Angelopoulos et al., Science 2023; PPI++, 2023) for a run's mean
score: a judge labels every topic, people label a few, and PPI combines both into an interval
that is valid whatever the judge's bias, and narrower than people's alone when the judge is good.

Per run, with one score per topic under the judge (``judge``) and under the people
(``human``, NaN on the topics nobody labelled):

- judge-only: the mean over every topic the judge scored, with its CLT interval
  (``ppi_py.classical_mean_ci``). It is only right if the judge is unbiased.
- human-only: the mean over the topics people labelled (same interval).
- PPI: ``ppi_py.ppi_mean_ci`` / ``ppi_mean_pointestimate`` (power-tuned PPI++: lambda chosen from
  the data and clipped to [0, 1], so it is never much worse than human-only) with the labelled
  topics (both scores) as the gold set and the topics only the judge scored as the unlabelled
  set. It needs at least 2 labelled and 2 unlabelled topics.
- effective_n: how many human-labelled topics a plain mean would need to be as precise as PPI,
  n_labelled * (width of the human-only interval on the labelled topics / PPI width) ** 2 (both
  are z-intervals from the same population variances, so this is the variance ratio).
- judge_biased: the judge-only interval excludes the PPI estimate.

PPI is unbiased only when the labelled topics are a uniformly random (or proportionally
stratified) sample of the topics. ``sampling_check`` flags sets that clearly are not: the first
or last n topics in the collection's order, or topics on which the judge's scores differ from
the others' (two-sided Mann-Whitney U test). Passing the check does not prove randomness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu

DEFAULT_LEVEL = 0.95
MIN_LABELLED = 2
MIN_UNLABELLED = 2
SAMPLING_ALPHA = 0.01


@dataclass(frozen=True)
class Estimate:
    value: float | None
    ci: tuple[float, float] | None
    n: int  # topics it rests on

    def as_dict(self) -> dict[str, object]:
        return {"estimate": self.value, "ci": list(self.ci) if self.ci else None, "n": self.n}


def _classical(values: np.ndarray, level: float) -> Estimate:
    from ppi_py import classical_mean_ci  # imported on use: ppi_py loads numba and statsmodels

    n = int(values.size)
    if n == 0:
        return Estimate(None, None, 0)
    value = float(values.mean())
    if n < 2:
        return Estimate(value, None, n)
    low, high = classical_mean_ci(values, alpha=1 - level)
    return Estimate(value, (float(low), float(high)), n)


def _first(value: object) -> float:
    return float(np.asarray(value, dtype=np.float64).reshape(-1)[0])


def _width(estimate: Estimate) -> float | None:
    return None if estimate.ci is None else estimate.ci[1] - estimate.ci[0]


@dataclass(frozen=True)
class PPIResult:
    judge_only: Estimate
    human_only: Estimate
    ppi: Estimate  # n = labelled topics (with both scores)
    n_unlabelled: int  # topics only the judge scored
    effective_n: float | None
    judge_biased: bool | None  # None where either figure is missing
    undefined: str | None = None  # why there is no PPI estimate

    def as_dict(self) -> dict[str, object]:
        return {
            "judge_only": self.judge_only.as_dict(),
            "human_only": self.human_only.as_dict(),
            "ppi": {**self.ppi.as_dict(), "n_unlabelled": self.n_unlabelled},
            "effective_n": self.effective_n,
            "judge_biased": self.judge_biased,
            "undefined": self.undefined,
        }


def ppi_estimates(judge: np.ndarray, human: np.ndarray, level: float = DEFAULT_LEVEL) -> PPIResult:
    """Judge-only, human-only and PPI estimates of one run's mean from per-topic scores (NaN:
    that side has no score on the topic)."""
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    judge = np.asarray(judge, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if judge.shape != human.shape or judge.ndim != 1:
        raise ValueError(f"judge and human must be 1-d of one length: {judge.shape}, {human.shape}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    has_judge, has_human = np.isfinite(judge), np.isfinite(human)
    labelled = has_judge & has_human
    unlabelled = has_judge & ~has_human
    judge_only = _classical(judge[has_judge], level)
    human_only = _classical(human[has_human], level)
    n, big_n = int(labelled.sum()), int(unlabelled.sum())
    undefined = None
    if n < MIN_LABELLED:
        undefined = f"fewer than {MIN_LABELLED} topics have both scores (n={n})"
    elif big_n < MIN_UNLABELLED:
        undefined = (
            f"fewer than {MIN_UNLABELLED} topics have a judge score and no human label "
            f"(N={big_n}): the human-only estimate is all there is to correct"
        )
    if undefined:
        return PPIResult(
            judge_only, human_only, Estimate(None, None, n), big_n, None, None, undefined
        )

    y, y_hat, y_hat_unlabelled = human[labelled], judge[labelled], judge[unlabelled]
    # Constant predictions carry no information and leave PPI++'s lambda 0/0: lambda = 0 (any
    # lambda gives the human mean then).
    lam = 0.0 if np.ptp(judge[has_judge]) == 0 else None
    value = _first(ppi_mean_pointestimate(y, y_hat, y_hat_unlabelled, lam=lam))
    low, high = (
        _first(v) for v in ppi_mean_ci(y, y_hat, y_hat_unlabelled, alpha=1 - level, lam=lam)
    )
    if not all(math.isfinite(v) for v in (value, low, high)):
        undefined = "ppi-python gave no finite estimate"
        return PPIResult(
            judge_only, human_only, Estimate(None, None, n), big_n, None, None, undefined
        )
    ppi = Estimate(value, (low, high), n)
    classical_width = _width(_classical(y, level))
    ppi_width = high - low
    effective_n = (
        n * (classical_width / ppi_width) ** 2
        if classical_width is not None and ppi_width > 0
        else None
    )
    biased = None
    if judge_only.ci is not None:
        biased = not judge_only.ci[0] <= value <= judge_only.ci[1]
    return PPIResult(judge_only, human_only, ppi, big_n, effective_n, biased)


@dataclass(frozen=True)
class SamplingCheck:
    """Whether the labelled topics look like a random sample of the topics."""

    n_topics: int
    n_labelled: int
    looks_random: bool | None  # None: nothing to check (no topic or every topic labelled)
    problems: list[str]
    p_value: float | None  # Mann-Whitney U, labelled vs other topics' judge scores

    def as_dict(self) -> dict[str, object]:
        return {
            "n_topics": self.n_topics,
            "n_labelled": self.n_labelled,
            "looks_random": self.looks_random,
            "problems": list(self.problems),
            "mann_whitney_p": self.p_value,
        }


def sampling_check(
    topic_scores: np.ndarray, labelled: np.ndarray, alpha: float = SAMPLING_ALPHA
) -> SamplingCheck:
    """Check the labelled topics (bool (T,), in the collection's topic order) against the
    judge's per-topic scores (T,) (e.g. its mean over runs; NaN: the judge has none)."""
    labelled = np.asarray(labelled, dtype=bool)
    scores = np.asarray(topic_scores, dtype=np.float64)
    total, n = int(labelled.size), int(labelled.sum())
    if n == 0 or n == total:
        return SamplingCheck(total, n, None, [], None)
    problems = []
    # A block at either end has probability 2 / C(T, n) under random sampling.
    at_start = bool(labelled[:n].all())
    at_end = bool(labelled[total - n :].all())
    if (at_start or at_end) and 2 / math.comb(total, n) < alpha:
        where = "first" if at_start else "last"
        problems.append(
            f"the labelled topics are the {where} {n} of {total} in the collection's order, "
            "not a random sample"
        )
    inside = scores[labelled & np.isfinite(scores)]
    outside = scores[~labelled & np.isfinite(scores)]
    p_value = None
    if inside.size >= 2 and outside.size >= 2 and np.ptp(np.concatenate([inside, outside])) > 0:
        p_value = float(mannwhitneyu(inside, outside, alternative="two-sided").pvalue)
        if p_value < alpha:
            problems.append(
                f"the judge scores the labelled topics differently from the others (mean "
                f"{inside.mean():.3f} vs {outside.mean():.3f}, Mann-Whitney p = {p_value:.2g}): "
                "they look selected, not drawn at random"
            )
    return SamplingCheck(total, n, not problems, problems, p_value)
