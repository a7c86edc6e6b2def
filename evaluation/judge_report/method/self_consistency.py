"""A judge against itself: test-retest agreement of an LLM judge re-run with sampling, beside
the agreement among people and between people and the judge on the same items. No Django.

A repeat is the judge (same model, same prompt version) decoding with temperature T > 0 and one
seed; each repeat is a judge identity of its own, its prompt version carrying the sampling
settings (``crux_app.vocabulary.repeat_version``: ``<version>~t<T>-s<seed>``), so repeats never
mix with the greedy judge's ratings or with each other.

- Test-retest: the repeats' labels of the same items as an (items x repeats) table. Krippendorff's
  ordinal alpha (the ``krippendorff`` package, through
  ``evaluation.agreement.method.label_agreement``), the mean share of agreeing repeat pairs per
  item, and the share of items all repeats label alike; percentile bootstrap intervals resample
  items.
- Human-human: ordinal alpha among the people who labelled those items.
- Human-judge: ordinal alpha between the judge and each person: every (item, person) pair with
  both labels is a unit of two labels (so it reads on the same scale as a pairwise human-human
  alpha); the bootstrap resamples those units.

The judge is within the spread of people when its test-retest alpha is not below the
human-human alpha (``spread_verdict``: intervals disjoint one way or the other, or overlapping).
An undefined alpha (one repeat; every label the same) is ``None`` with its reason, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import RaterLabels, Stat, proportion, undefined

ALPHA_LEVEL = "ordinal"
FEWER_THAN_TWO_REPEATS = "fewer than 2 repeats of the judge"
FEWER_THAN_TWO_PEOPLE = "fewer than 2 people labelled these items"
NO_PEOPLE = "no person labelled these items"


@dataclass(frozen=True)
class RetestAgreement:
    n_repeats: int
    n_items: int  # items that at least 2 repeats labelled
    alpha: Stat
    agreement: Stat  # mean share of agreeing repeat pairs per item
    all_agree: Stat  # share of items that every repeat labelling them labels alike

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def retest_agreement(
    ratings: np.ndarray, categories: Sequence[float], boot: Bootstrap | None = None
) -> RetestAgreement:
    """Agreement of a judge's repeats: ``ratings`` is (items, repeats), NaN for no label."""
    ratings = np.asarray(ratings, float)
    if ratings.ndim != 2:
        raise ValueError(f"ratings must be (items, repeats), got shape {ratings.shape}")
    boot = boot or Bootstrap()
    n_repeats = ratings.shape[1]
    names = ("test_retest_alpha", "test_retest_agreement", "test_retest_all_agree")
    if n_repeats < 2:
        stats = [undefined(name, 0, FEWER_THAN_TWO_REPEATS) for name in names]
        return RetestAgreement(n_repeats, 0, *stats)
    labels = RaterLabels(ratings, categories, boot)
    alpha = labels.krippendorff_alpha(ALPHA_LEVEL, statistic=names[0])
    agreement = labels.percent_agreement(names[1])
    labelled = ~np.isnan(ratings)
    rows = ratings[labelled.sum(axis=1) >= 2]
    alike = [np.unique(row[~np.isnan(row)]).size == 1 for row in rows]
    if alike:
        all_agree = proportion(alike, names[2], boot)
    else:
        all_agree = undefined(names[2], 0, "no item with at least 2 labels")
    return RetestAgreement(n_repeats, labels.n, alpha, agreement, all_agree)


def human_human_alpha(
    humans: np.ndarray, categories: Sequence[float], boot: Bootstrap | None = None
) -> Stat:
    """Ordinal alpha among people: ``humans`` is (items, people), NaN for no label."""
    humans = np.asarray(humans, float)
    name = "human_human_alpha"
    if humans.ndim != 2 or humans.shape[1] < 2:
        return undefined(name, 0, FEWER_THAN_TWO_PEOPLE)
    return RaterLabels(humans, categories, boot).krippendorff_alpha(ALPHA_LEVEL, statistic=name)


def judge_person_units(judge: np.ndarray, humans: np.ndarray) -> np.ndarray:
    """(units, 2): [person's label, judge's label] for every (item, person) with both."""
    judge, humans = np.asarray(judge, float), np.asarray(humans, float)
    if humans.ndim != 2 or judge.shape != (humans.shape[0],):
        raise ValueError(f"judge {judge.shape} and humans {humans.shape} do not match")
    both = ~np.isnan(humans) & ~np.isnan(judge)[:, None]
    items, people = np.nonzero(both)
    return np.column_stack([humans[items, people], judge[items]])


def human_judge_alpha(
    judge: np.ndarray,
    humans: np.ndarray,
    categories: Sequence[float],
    boot: Bootstrap | None = None,
) -> Stat:
    """Ordinal alpha between the judge (items,) and each person (items, people)."""
    name = "human_judge_alpha"
    humans = np.asarray(humans, float)
    if humans.ndim != 2 or humans.shape[1] == 0:
        return undefined(name, 0, NO_PEOPLE)
    units = judge_person_units(judge, humans)
    return RaterLabels(units, categories, boot).krippendorff_alpha(ALPHA_LEVEL, statistic=name)


@dataclass(frozen=True)
class Verdict:
    code: str  # "narrower", "similar", "wider" or "unknown"
    within: bool | None  # is the judge's own spread within people's? None: cannot say
    sentence: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _text(stat: Stat) -> str:
    if stat.ci_low is None or stat.ci_high is None:
        return f"{stat.value:.3f}"
    return f"{stat.value:.3f} [{stat.ci_low:.3f}, {stat.ci_high:.3f}]"


def _bounds(stat: Stat) -> tuple[float, float]:
    assert stat.value is not None
    if stat.ci_low is None or stat.ci_high is None:
        return stat.value, stat.value
    return stat.ci_low, stat.ci_high


def spread_verdict(retest: Stat, human_human: Stat) -> Verdict:
    """Whether the judge's disagreement with itself lies within people's with each other:
    test-retest alpha against human-human alpha, by their intervals."""
    if retest.value is None:
        return Verdict(
            "unknown", None, f"The judge's test-retest alpha is undefined ({retest.undefined})."
        )
    if human_human.value is None:
        return Verdict(
            "unknown",
            None,
            f"The judge's test-retest alpha is {_text(retest)}; there is no human-human alpha "
            f"on these items to compare it with ({human_human.undefined}).",
        )
    low, high = _bounds(retest)
    people_low, people_high = _bounds(human_human)
    both = f"test-retest alpha {_text(retest)}, human-human alpha {_text(human_human)}"
    if high < people_low:
        return Verdict(
            "wider",
            False,
            f"Outside the spread of people: the judge's repeats disagree with each other more "
            f"than people disagree with each other ({both}).",
        )
    if low > people_high:
        return Verdict(
            "narrower",
            True,
            f"Within the spread of people: the judge's repeats agree with each other more "
            f"closely than people agree with each other ({both}).",
        )
    return Verdict(
        "similar",
        True,
        f"Within the spread of people: the judge's repeats disagree with each other about as "
        f"much as people do; the intervals overlap ({both}).",
    )
