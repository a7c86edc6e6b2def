"""Where a vital nugget was lost on its way into a run's answer.

For one (run, topic, nugget), from three facts:

- ``stated``: the answer states the nugget (its assignment is support or partial support);
- ``cited_support``: a passage the answer cites supports the nugget;
- ``retrieved_support``: a passage in the run's top k supports the nugget;

the category is

- ``delivered``: stated, and a cited passage supports it;
- ``unsupported``: stated, but no cited passage supports it (parametric knowledge or a
  hallucination that happens to match);
- ``generation drop``: not stated, although a top-k or cited passage supports it;
- ``retrieval miss``: not stated, and no top-k or cited passage supports it.

A cited passage counts for the generation drop too: a run's answer may cite a passage outside
its own top k (the TREC RAG references are the generator's context, not always the ranking).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

RETRIEVAL_MISS = "retrieval miss"
GENERATION_DROP = "generation drop"
UNSUPPORTED = "unsupported"
DELIVERED = "delivered"
# Pipeline order: the stacked bars and tables list them so.
CATEGORIES = (RETRIEVAL_MISS, GENERATION_DROP, UNSUPPORTED, DELIVERED)
STATED = frozenset({"support", "partial_support"})


@dataclass(frozen=True)
class NuggetEvidence:
    stated: bool
    cited_support: bool
    retrieved_support: bool


def attribute(evidence: NuggetEvidence) -> str:
    """The category of one (run, topic, nugget)."""
    if evidence.stated:
        return DELIVERED if evidence.cited_support else UNSUPPORTED
    if evidence.cited_support or evidence.retrieved_support:
        return GENERATION_DROP
    return RETRIEVAL_MISS


def is_stated(assignment: str) -> bool:
    return assignment in STATED


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
