"""DENSE-RAG's iterative context refinement (seed 003, Algorithm 3), one question at a time,
as a state machine so that a driver can step many questions in lockstep and batch their model
calls.

Each step the driver evaluates ``state.context`` (DSE, r_0, chunk labels) and asks the
self-evaluation prompt (B.3) whether it suffices, then calls ``observe``. The best context is
kept as in Algorithm 3 (lines 8-12): a lower DSE replaces the best unless the best was judged
sufficient and this one is not. Then:

- stop when the best DSE < threshold and the best context was judged sufficient;
- otherwise drop the unnecessary chunks, and for each necessary chunk add the unvisited pool
  chunk most similar to it (cosine; ties go to the earlier pool chunk, i.e. the higher rank);
- stop when that changes nothing, leaves no chunk, returns to a context already evaluated, or
  the step limit is reached; the answer is then the best context's r_0.

The pseudocode resets its visited set inside the loop (line 15), which would never end; here
the visited set only grows, so every pool chunk is added at most once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from evaluation.dense.method.graph import DEFAULT_THRESHOLD, NECESSARY, UNNECESSARY

DEFAULT_MAX_STEPS = 4
SUFFICIENT_AND_CERTAIN = "certain and sufficient"
NO_CHANGE = "nothing left to change"
EMPTY = "every chunk was unnecessary"
REPEATED = "came back to an evaluated context"
STEP_LIMIT = "step limit"


@dataclass
class RefinementStep:
    context: tuple[int, ...]  # pool indices, context order
    dse: float
    answer: str
    sufficient: bool
    labels: list[str]
    removed: list[int] = field(default_factory=list)  # dropped after this step
    added: list[int] = field(default_factory=list)  # refilled after this step

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["context"] = list(self.context)
        return out


class ContextRefinement:
    """Algorithm 3 for one question over a pool of chunks with pairwise cosine similarities."""

    def __init__(
        self,
        initial: Sequence[int],
        similarity: np.ndarray,
        threshold: float = DEFAULT_THRESHOLD,
        max_steps: int = DEFAULT_MAX_STEPS,
    ) -> None:
        sim = np.asarray(similarity, dtype=float)
        if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
            raise ValueError(f"similarity must be a square pool x pool matrix, got {sim.shape}")
        if not initial:
            raise ValueError("the initial context has no chunk")
        if len(set(initial)) != len(initial):
            raise ValueError(f"the initial context repeats a chunk: {list(initial)}")
        bad = [i for i in initial if not 0 <= i < sim.shape[0]]
        if bad:
            raise ValueError(f"initial chunk {bad[0]} is not in the pool of {sim.shape[0]}")
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        self.similarity = sim
        self.threshold = threshold
        self.max_steps = max_steps
        self.context: tuple[int, ...] = tuple(initial)
        self.visited: set[int] = set(initial)
        self.steps: list[RefinementStep] = []
        self.best: int | None = None  # index into steps
        self.best_sufficient = False
        self.done = False
        self.stop_reason = ""
        self._seen: set[tuple[int, ...]] = {self.context}

    @property
    def best_step(self) -> RefinementStep:
        if self.best is None:
            raise ValueError("no context has been evaluated yet")
        return self.steps[self.best]

    def observe(self, dse: float, answer: str, labels: Sequence[str], sufficient: bool) -> None:
        """Record the evaluation of ``self.context`` and move to the next context (or stop)."""
        if self.done:
            raise ValueError("the refinement has already stopped")
        if len(labels) != len(self.context):
            raise ValueError(f"{len(labels)} labels for a context of {len(self.context)} chunks")
        step = RefinementStep(self.context, float(dse), answer, bool(sufficient), list(labels))
        self.steps.append(step)
        best_dse = self.best_step.dse if self.best is not None else float("inf")
        if dse < best_dse and (not self.best_sufficient or sufficient):
            self.best, self.best_sufficient = len(self.steps) - 1, bool(sufficient)
        if self.best_step.dse < self.threshold and self.best_sufficient:
            return self._stop(SUFFICIENT_AND_CERTAIN)
        if len(self.steps) >= self.max_steps:
            return self._stop(STEP_LIMIT)
        kept = [c for c, label in zip(self.context, labels, strict=True) if label != UNNECESSARY]
        step.removed = [c for c in self.context if c not in kept]
        for chunk, label in zip(self.context, labels, strict=True):
            if label == NECESSARY:
                refill = self._most_similar_unvisited(chunk)
                if refill is not None:
                    self.visited.add(refill)
                    kept.append(refill)
                    step.added.append(refill)
        following = tuple(kept)
        if following == self.context:
            return self._stop(NO_CHANGE)
        if not following:
            return self._stop(EMPTY)
        if following in self._seen:
            return self._stop(REPEATED)
        self._seen.add(following)
        self.context = following

    def _most_similar_unvisited(self, chunk: int) -> int | None:
        candidates = [j for j in range(self.similarity.shape[0]) if j not in self.visited]
        if not candidates:
            return None
        scores = self.similarity[chunk, candidates]
        return candidates[int(np.argmax(scores))]  # argmax: first of equal maxima

    def _stop(self, reason: str) -> None:
        self.done = True
        self.stop_reason = reason

    def as_dict(self) -> dict[str, object]:
        best = self.best_step
        return {
            "steps": [s.as_dict() for s in self.steps],
            "best_step": self.best,
            "final_context": list(best.context),
            "final_answer": best.answer,
            "final_dse": best.dse,
            "final_sufficient": best.sufficient,
            "stop_reason": self.stop_reason,
        }
