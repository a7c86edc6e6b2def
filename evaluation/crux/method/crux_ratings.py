"""The array shapes every CRUX metric reads: per-topic rating matrices, stacked into a batch.

A topic's ratings are a (passages x sub-questions) float matrix with values 0..5 and NaN for
an unjudged (passage, sub-question) pair. A batch stacks T topics into (T, P, Q) arrays padded
to the largest topic; padding passages/questions are masked out and never read. A context (the
top-k of a run, or any set of passages in rank order) is a list of row indices into its topic's
matrix; ``OUTSIDE`` stands for a passage without a row there (a passage of another topic, which
CRUX rates 0 on every sub-question) and also pads short contexts in a stacked (T, K) array.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# A context entry without a row in the topic's matrix: rating 0 on every sub-question.
OUTSIDE = -1


@dataclass(frozen=True)
class TopicRatings:
    """One topic: ratings (P, Q), which passages are required (oracle), placeholder questions."""

    ratings: np.ndarray
    required: np.ndarray | None = None
    placeholder: np.ndarray | None = None

    def __post_init__(self) -> None:
        ratings = np.asarray(self.ratings, dtype=np.float64)
        if ratings.ndim != 2:
            raise ValueError(f"ratings must be (passages, questions), got shape {ratings.shape}")
        check_rating_range(ratings, "ratings")
        p, q = ratings.shape
        required = np.zeros(p, bool) if self.required is None else np.asarray(self.required, bool)
        placeholder = (
            np.zeros(q, bool) if self.placeholder is None else np.asarray(self.placeholder, bool)
        )
        if required.shape != (p,):
            raise ValueError(f"required must have shape ({p},), got {required.shape}")
        if placeholder.shape != (q,):
            raise ValueError(f"placeholder must have shape ({q},), got {placeholder.shape}")
        object.__setattr__(self, "ratings", ratings)
        object.__setattr__(self, "required", required)
        object.__setattr__(self, "placeholder", placeholder)


@dataclass(frozen=True)
class RatingsBatch:
    """T topics padded to (T, P, Q); masks say which passages and questions are real."""

    ratings: np.ndarray  # (T, P, Q) float64, NaN = unjudged (and padding)
    passage_valid: np.ndarray  # (T, P) bool
    question_valid: np.ndarray  # (T, Q) bool: False for placeholders and padding
    required: np.ndarray  # (T, P) bool

    @classmethod
    def stack(cls, topics: Sequence[TopicRatings]) -> "RatingsBatch":
        """Pad and stack per-topic matrices."""
        t = len(topics)
        p = max((x.ratings.shape[0] for x in topics), default=0)
        q = max((x.ratings.shape[1] for x in topics), default=0)
        ratings = np.full((t, p, q), np.nan)
        passage_valid = np.zeros((t, p), bool)
        question_valid = np.zeros((t, q), bool)
        required = np.zeros((t, p), bool)
        for i, topic in enumerate(topics):
            tp, tq = topic.ratings.shape
            ratings[i, :tp, :tq] = topic.ratings
            passage_valid[i, :tp] = True
            question_valid[i, :tq] = ~topic.placeholder
            required[i, :tp] = topic.required
        return cls(ratings, passage_valid, question_valid, required)

    @classmethod
    def single(cls, topic: TopicRatings) -> "RatingsBatch":
        return cls.stack([topic])

    def __post_init__(self) -> None:
        t, p, q = self.ratings.shape
        for name, shape in (
            ("passage_valid", (t, p)),
            ("question_valid", (t, q)),
            ("required", (t, p)),
        ):
            if getattr(self, name).shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {getattr(self, name).shape}")
        check_rating_range(self.ratings, "ratings")
        if (self.required & ~self.passage_valid).any():
            raise ValueError("required marks a padding passage")

    @property
    def n_topics(self) -> int:
        return self.ratings.shape[0]


def check_rating_range(ratings: np.ndarray, name: str) -> None:
    """Judged ratings must lie in 0..5; NaN marks an unjudged pair."""
    judged = ratings[~np.isnan(ratings)]
    if judged.size and (judged.min() < 0 or judged.max() > 5):
        raise ValueError(f"{name} must lie in 0..5 (NaN = unjudged); found {judged.min()}..")


def stack_contexts(contexts: Sequence[Sequence[int]], k: int | None = None) -> np.ndarray:
    """Lists of row indices in rank order -> (T, K) int array padded with ``OUTSIDE``.

    ``k`` cuts every context to its first k entries and fixes K = k (so a shorter context is
    padded to k: padding rates 0 and so never changes a metric).
    """
    if k is not None and k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    width = k if k is not None else max((len(c) for c in contexts), default=0)
    out = np.full((len(contexts), width), OUTSIDE, dtype=np.int64)
    for i, context in enumerate(contexts):
        row = list(context)[:width]
        out[i, : len(row)] = row
    return out


def check_contexts(batch: RatingsBatch, contexts: np.ndarray) -> np.ndarray:
    """(T, K) row indices as int64, refused (ValueError naming the topic) when an entry names
    no row of its topic or a row twice."""
    contexts = np.asarray(contexts, dtype=np.int64)
    if contexts.ndim != 2 or contexts.shape[0] != batch.n_topics:
        raise ValueError(f"contexts must have shape ({batch.n_topics}, K), got {contexts.shape}")
    n_passages = batch.passage_valid.sum(axis=1)
    bad = (contexts < OUTSIDE) | (contexts >= n_passages[:, None])
    if bad.any():
        topic, pos = map(int, np.argwhere(bad)[0])
        raise ValueError(
            f"context of topic {topic} at position {pos} names passage row "
            f"{int(contexts[topic, pos])}, but the topic has {int(n_passages[topic])} rows"
        )
    # A repeat shows as a (topic, row) counted twice: one pass, where sorting each context
    # would cost K log K per topic.
    inside = contexts != OUTSIDE
    width = batch.ratings.shape[1]
    topic_of = np.broadcast_to(np.arange(contexts.shape[0])[:, None], contexts.shape)
    flat = (topic_of * width + contexts)[inside]
    if flat.size and np.bincount(flat, minlength=1).max() > 1:
        ordered = np.sort(contexts, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != OUTSIDE)
        topic, pos = map(int, np.argwhere(repeated)[0])
        raise ValueError(
            f"context of topic {topic} lists passage row {int(ordered[topic, pos])} twice"
        )
    return contexts


def context_ratings(batch: RatingsBatch, contexts: np.ndarray) -> np.ndarray:
    """Gather the (T, K, Q) ratings of each context; ``OUTSIDE`` entries rate 0 everywhere."""
    contexts = check_contexts(batch, contexts)
    t, p, q = batch.ratings.shape
    outside = contexts == OUTSIDE
    if p == 0:  # no rows at all: every entry is OUTSIDE
        return np.zeros((t, contexts.shape[1], q))
    # Gather row 0 for OUTSIDE entries and zero them after: appending a zero row to the
    # ratings instead would copy the whole (T, P, Q) array on every call.
    gathered = np.take_along_axis(batch.ratings, np.where(outside, 0, contexts)[:, :, None], 1)
    gathered[outside] = 0.0
    return gathered


def top_k(contexts: np.ndarray, k: int | np.ndarray) -> np.ndarray:
    """Keep the first k entries of each (T, K) context; k may differ per topic (e.g. |O|)."""
    contexts = np.asarray(contexts, dtype=np.int64)
    k = np.broadcast_to(np.asarray(k, dtype=np.int64), (contexts.shape[0],))
    if (k < 0).any():
        raise ValueError(f"k must be >= 0, got {int(k.min())}")
    keep = np.arange(contexts.shape[1])[None, :] < k[:, None]
    return np.where(keep, contexts, OUTSIDE)
