"""The embedding baseline judge's model calls: one batched embedder call per batch of items,
cut into CRUX's 0-5 scale by ``method.embedding_rating`` (no LLM, runs on the ``cpu`` queue).

It fills the same ``RatedItem`` rows as the LLM judge, so its judgments are stored, shown and
compared like any judge's; ``raw_output`` records the cosine the rating came from.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.backends.base import Embedder
from evaluation.crux.engine import JudgeItem, RatedItem, has_context
from evaluation.crux.method.embedding_rating import (
    PROMPT_VERSION,
    ratings_from_cosines,
    row_cosines,
)


def rate_by_embedding(items: Sequence[JudgeItem], embedder: Embedder) -> list[RatedItem]:
    """Rate every item in one embedder call (questions and contexts together), in item order."""
    if not items:
        return []
    for item in items:
        if not has_context(item.context):
            raise ValueError(f"item {item.key!r} has no context text to judge")
    vectors = embedder.embed([i.question for i in items] + [i.context for i in items])
    n = len(items)
    cosines = row_cosines(vectors[:n], vectors[n:])
    ratings = ratings_from_cosines(cosines)
    return [
        RatedItem(item=item, prompt=PROMPT_VERSION, raw_output=f"cosine={cos:.4f}", rating=int(r))
        for item, cos, r in zip(items, cosines, ratings, strict=True)
    ]
