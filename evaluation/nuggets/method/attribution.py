"""Where a vital nugget was lost on its way into a run's answer.

For one (run, topic, nugget), from four facts:

- ``stated``: the answer states the nugget (its assignment is support or partial support);
- ``cited_support``: a passage the answer cites supports the nugget (nugget-passage rating);
- ``retrieved_support``: a passage in the run's top k supports the nugget;
- ``sentence_support``: a cited passage supports a sentence that states the nugget (the
  sentence-citation judge's grade, see ``sentence_backed``);

the category is

- ``delivered``: stated, and a cited passage supports it, by either of the two routes;
- ``unsupported``: stated, but no cited passage supports it (parametric knowledge or a
  hallucination that happens to match);
- ``generation drop``: not stated, although a top-k or cited passage supports it;
- ``retrieval miss``: not stated, and no top-k or cited passage supports it.

A cited passage counts for the generation drop too: a run's answer may cite a passage outside
its own top k (the TREC RAG references are the generator's context, not always the ranking).

Whether the answer states a nugget is the assignment's word alone; sentence grades only decide
whether a stated nugget is backed, so they move a nugget between ``unsupported`` and
``delivered`` and never touch the two unstated categories.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy.stats import norm

RETRIEVAL_MISS = "retrieval miss"
GENERATION_DROP = "generation drop"
UNSUPPORTED = "unsupported"
DELIVERED = "delivered"
# Pipeline order: the stacked bars and tables list them so.
CATEGORIES = (RETRIEVAL_MISS, GENERATION_DROP, UNSUPPORTED, DELIVERED)
STATED = frozenset({"support", "partial_support"})
# The sentence-citation grade that says "the cited passage supports the sentence" (2 of 0/1/2);
# a partly supported sentence (1) may leave out exactly the nugget, so it does not back it.
SENTENCE_SUPPORTS = 2
# The lowest nugget-passage rating (0-5) that ties a citing sentence to the nugget: the
# support judge found the passage about the nugget at all.
ABOUT_NUGGET = 1

Passage = TypeVar("Passage", bound=Hashable)


@dataclass(frozen=True)
class NuggetEvidence:
    stated: bool
    cited_support: bool
    retrieved_support: bool
    sentence_support: bool = False


def attribute(evidence: NuggetEvidence) -> str:
    """The category of one (run, topic, nugget)."""
    if evidence.stated:
        backed = evidence.cited_support or evidence.sentence_support
        return DELIVERED if backed else UNSUPPORTED
    if evidence.cited_support or evidence.retrieved_support:
        return GENERATION_DROP
    return RETRIEVAL_MISS


def is_stated(assignment: str) -> bool:
    return assignment in STATED


def sentence_backed(
    sentences: Iterable[Mapping[Passage, int | None]],
    nugget_ratings: Mapping[Passage, int],
) -> set[Passage]:
    """The cited passages that back a stated nugget through a sentence.

    ``sentences``: per answer sentence, its cited passages with the sentence judge's 0/1/2
    grade (None: not graded); ``nugget_ratings``: the support judge's 0-5 rating of passages
    for this nugget. No stored link says which sentence states which nugget, so a sentence is
    taken to state the nugget through a passage it cites that the support judge rates at least
    ``ABOUT_NUGGET`` for the nugget; that passage backs the nugget when it fully supports that
    sentence (grade ``SENTENCE_SUPPORTS``). A passage must do both jobs in the same sentence:
    one that supports an unrelated sentence backs nothing.
    """
    return {
        passage
        for graded in sentences
        for passage, grade in graded.items()
        if grade == SENTENCE_SUPPORTS and nugget_ratings.get(passage, 0) >= ABOUT_NUGGET
    }


def category_counts(categories: Iterable[str]) -> dict[str, int]:
    """Counts per category, every category present (0 where none), in pipeline order."""
    counted = Counter(categories)
    unknown = set(counted) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unknown categories {sorted(unknown)}")
    return {category: counted.get(category, 0) for category in CATEGORIES}


@dataclass(frozen=True)
class ShareInterval:
    share: float
    low: float
    high: float


def wilson_interval(count: int, total: int, confidence: float = 0.95) -> ShareInterval | None:
    """The Wilson score interval of ``count / total`` (None without a sample): the share of a
    category among the vital nuggets a human judge labelled, which is a binomial sample."""
    if total <= 0:
        return None
    if not 0 <= count <= total:
        raise ValueError("count must lie in 0..total")
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie in (0, 1)")
    z = float(norm.ppf(0.5 + confidence / 2))
    p = count / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * np.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return ShareInterval(p, max(0.0, float(centre - half)), min(1.0, float(centre + half)))
