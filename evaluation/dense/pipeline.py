"""DENSE-RAG for a batch of questions: DENSE on each question's top-k, then, for the uncertain
ones only, adaptive semantic chunking of their top-k passages (Algorithm 2) and iterative
context refinement over their ranked pool (Algorithm 3). Each refinement round evaluates every
unfinished question together, so model calls stay batched across questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evaluation.backends.base import Embedder
from evaluation.dense.engine import DenseEngine, DenseEvaluation, DenseQuestion
from evaluation.dense.method.chunking import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TAU,
    semantic_groups,
    split_sentences,
)
from evaluation.dense.method.refinement import DEFAULT_MAX_STEPS, ContextRefinement


@dataclass(frozen=True)
class PipelineSettings:
    refine: bool = True
    max_steps: int = DEFAULT_MAX_STEPS
    chunking: bool = True
    chunk_tau: float = DEFAULT_TAU
    chunk_max_tokens: int = DEFAULT_MAX_TOKENS


@dataclass(frozen=True)
class PipelineQuestion:
    key: str
    question: str
    k: int  # the first k pool chunks are the context DENSE measures
    pool: tuple[str, ...]  # the ranked chunks refinement may refill from (top-k first)

    @property
    def chunks(self) -> tuple[str, ...]:
        return self.pool[: self.k]


@dataclass
class PipelineResult:
    question: PipelineQuestion
    evaluation: DenseEvaluation
    refinement: dict[str, object] | None = None  # ContextRefinement.as_dict()
    semantic_chunks: list[dict[str, object]] = field(default_factory=list)


def run_pipeline(
    questions: Sequence[PipelineQuestion],
    engine: DenseEngine,
    embedder: Embedder | None,
    settings: PipelineSettings | None = None,
) -> list[PipelineResult]:
    """DENSE for every question; chunking and refinement for the uncertain ones."""
    settings = settings or PipelineSettings()
    if (settings.refine or settings.chunking) and embedder is None:
        raise ValueError("chunking and refinement need an embedder")
    evaluations = engine.evaluate([DenseQuestion(q.key, q.question, q.chunks) for q in questions])
    results = [PipelineResult(q, e) for q, e in zip(questions, evaluations, strict=True)]
    uncertain = [r for r in results if r.evaluation.uncertain]
    if uncertain and settings.chunking:
        _chunk(uncertain, engine, embedder, settings)
    if uncertain and settings.refine:
        _refine(uncertain, engine, embedder, settings)
    return results


def _chunk(results, engine: DenseEngine, embedder: Embedder, settings: PipelineSettings) -> None:
    """Algorithm 2 on each top-k passage of each uncertain question (one embedding call)."""
    documents = [
        (r, i, split_sentences(c)) for r in results for i, c in enumerate(r.question.chunks)
    ]
    sentences = [s for _, _, doc in documents for s in doc]
    vectors = embedder.embed(sentences) if sentences else np.zeros((0, 1))
    counts = engine.generator.count_tokens(sentences) if sentences else []
    start = 0
    for result, index, doc in documents:
        end = start + len(doc)
        groups = semantic_groups(
            vectors[start:end], counts[start:end], settings.chunk_tau, settings.chunk_max_tokens
        )
        for group in groups:
            result.semantic_chunks.append(
                {"chunk": index, "sentences": len(group), "text": " ".join(doc[i] for i in group)}
            )
        start = end


def _refine(results, engine: DenseEngine, embedder: Embedder, settings: PipelineSettings) -> None:
    """Algorithm 3 for every uncertain question, the rounds of all questions batched."""
    pools = [list(r.question.pool) for r in results]
    texts = list(dict.fromkeys(t for pool in pools for t in pool))
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    states = []
    for result, pool in zip(results, pools, strict=True):
        matrix = np.stack([vectors[t] for t in pool])
        similarity = matrix @ matrix.T  # the embedder's vectors are L2-normalised
        states.append(
            ContextRefinement(
                range(result.question.k),
                similarity,
                engine.settings.threshold,
                settings.max_steps,
            )
        )
    # Round 0 is DENSE's own evaluation; only the self-evaluation is new.
    flags = engine.sufficient([(r.question.question, r.question.chunks) for r in results])
    for state, result, flag in zip(states, results, flags, strict=True):
        e = result.evaluation
        state.observe(e.dse, e.answer, e.labels, flag)
    while active := [i for i, s in enumerate(states) if not s.done]:
        asks = [
            DenseQuestion(
                results[i].question.key,
                results[i].question.question,
                tuple(pools[i][c] for c in states[i].context),
            )
            for i in active
        ]
        evaluations = engine.evaluate(asks)
        flags = engine.sufficient([(a.question, a.chunks) for a in asks])
        for i, e, flag in zip(active, evaluations, flags, strict=True):
            states[i].observe(e.dse, e.answer, e.labels, flag)
    for result, state in zip(results, states, strict=True):
        result.refinement = state.as_dict()
