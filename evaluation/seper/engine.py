"""SePer / Delta-SePer for a batch of questions on a generator and an NLI model.

``score_batch`` takes many questions, each with gold answers and zero or more contexts, and:
1. samples N responses for every distinct prompt (the no-context baseline and each context)
   in one generator call, reusing the caller's response cache;
2. builds every NLI pair the batch needs (responses x golds both ways; responses x responses
   both ways for the clustering), deduplicated, and scores them in one ``predict`` call;
3. computes SePer_S / SePer_H per (question, context) with ``evaluation.seper.method.scores`` and
   Delta-SePer against the baseline.

An empty (blank) context is the baseline itself: same prompt, same samples, Delta = 0 exactly.
No Django here: a Celery task gets the models from the registry, calls ``score_batch`` on a
batch, and stores ``SeperBatch.to_dict()`` plus the new cache entries.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evaluation.backends.base import Generation, Generator, NLIModel
from evaluation.backends.nli_pairs import NLIPairTable, gather
from evaluation.seper.method.scores import (
    DeltaSeper,
    SeperScore,
    response_scores,
    response_weights,
    score_responses,
)
from evaluation.seper.sampling import (
    ResponseCache,
    SampleKey,
    SamplingParams,
    answer_prompt,
    generation_to_dict,
    sample_prompts,
)


@dataclass(frozen=True)
class SeperContext:
    """One context D to measure: a passage, a whole retrieval context, or one pipeline step."""

    key: str  # the caller's label (a passage id, "top-10", "step-2", ...)
    text: str


@dataclass(frozen=True)
class SeperQuestion:
    question: str
    golds: tuple[str, ...]
    contexts: tuple[SeperContext, ...] = ()


def join_passages(passages: Sequence[str]) -> str:
    """A whole retrieval context as one text: the non-blank passages, one per line."""
    return "\n".join(p.strip() for p in passages if p.strip())


def check_questions(questions: Sequence[SeperQuestion]) -> None:
    """ValueError naming the question index when a question or a gold answer is blank."""
    for index, q in enumerate(questions):
        if not q.question.strip():
            raise ValueError(f"question {index}: the question text is blank")
        if not q.golds:
            raise ValueError(f"question {index}: SePer needs at least one gold answer")
        if any(not g.strip() for g in q.golds):
            raise ValueError(f"question {index}: a gold answer is blank")
        keys = [c.key for c in q.contexts]
        if len(set(keys)) != len(keys):
            raise ValueError(f"question {index}: context keys repeat")


@dataclass(frozen=True)
class ScoredResponse:
    text: str
    tokens: list[str]
    token_logprobs: list[float]
    finish_reason: str
    score: float  # s_i (mean token log-prob, or the no-token fill)
    weight: float  # w_i

    def to_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "token_logprobs": self.token_logprobs,
            "finish_reason": self.finish_reason,
            "score": self.score,
            "weight": self.weight,
        }


@dataclass(frozen=True)
class ContextResult:
    """SePer of one question under one context (``key`` None: the no-context baseline)."""

    key: str | None
    context: str
    sample_key: SampleKey
    responses: list[ScoredResponse]
    score: SeperScore
    delta: DeltaSeper  # against the baseline; 0 for the baseline itself

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "context": self.context,
            "prompt": self.sample_key.prompt,
            "sample_key": self.sample_key.digest(),
            "responses": [r.to_dict() for r in self.responses],
            **self.score.to_dict(),
            "delta_seper_soft": self.delta.soft,
            "delta_seper_hard": self.delta.hard,
        }


@dataclass(frozen=True)
class QuestionResult:
    question: str
    golds: tuple[str, ...]
    baseline: ContextResult
    contexts: list[ContextResult]

    def to_dict(self) -> dict[str, object]:
        return {
            "question": self.question,
            "golds": list(self.golds),
            "baseline": self.baseline.to_dict(),
            "contexts": [c.to_dict() for c in self.contexts],
        }


@dataclass
class BatchStats:
    questions: int = 0
    prompts: int = 0  # distinct prompts
    prompts_sampled: int = 0  # cache misses drawn by this call
    prompts_cached: int = 0
    nli_pairs_requested: int = 0
    nli_pairs_scored: int = 0  # after deduplication
    nli_calls: int = 0
    sampling_seconds: float = 0.0
    nli_seconds: float = 0.0


@dataclass
class SeperBatch:
    results: list[QuestionResult]
    # Every sample set the batch used (new and cached), for the job to store.
    samples: dict[SampleKey, list[Generation]]
    stats: BatchStats = field(default_factory=BatchStats)

    def to_dict(self) -> dict[str, object]:
        return {
            "results": [r.to_dict() for r in self.results],
            "samples": [
                {
                    "digest": key.digest(),
                    "key": key.to_dict(),
                    "generations": [generation_to_dict(g) for g in generations],
                }
                for key, generations in self.samples.items()
            ],
            "stats": vars(self.stats).copy(),
        }


@dataclass
class _Unit:
    """One (question, prompt) to score, with the pair ids it needs."""

    key: SampleKey
    response_gold: np.ndarray  # (N, m) ids
    gold_response: np.ndarray  # (m, N) ids
    response_response: np.ndarray  # (N, N) ids, -1 on the diagonal


def score_batch(
    questions: Sequence[SeperQuestion],
    generator: Generator,
    nli: NLIModel,
    params: SamplingParams | None = None,
    cache: ResponseCache | None = None,
) -> SeperBatch:
    """SePer_S, SePer_H and Delta-SePer of every question and context of the batch."""
    params = params or SamplingParams()
    check_questions(questions)
    prompts = [
        [answer_prompt(q.question), *(answer_prompt(q.question, c.text) for c in q.contexts)]
        for q in questions
    ]
    sampling = sample_prompts(generator, [p for row in prompts for p in row], params, cache)

    table = NLIPairTable()
    units: dict[tuple[int, SampleKey], _Unit] = {}
    for index, (q, row) in enumerate(zip(questions, prompts, strict=True)):
        for prompt in row:
            key = SampleKey.of(generator.model_id, prompt, params)
            if (index, key) not in units:
                units[(index, key)] = _pairs_for(table, q, key, sampling.samples[key])
    started = time.perf_counter()
    probs = table.predict(nli)
    nli_seconds = time.perf_counter() - started

    scores = {
        unit_id: _score_unit(unit, sampling.samples[unit.key], probs)
        for unit_id, unit in units.items()
    }
    results = []
    for index, (q, row) in enumerate(zip(questions, prompts, strict=True)):
        keys = [SampleKey.of(generator.model_id, p, params) for p in row]
        baseline = scores[(index, keys[0])]
        contexts = [None, *q.contexts]
        scored = [
            _context_result(ctx, key, scores[(index, key)], baseline, sampling.samples[key])
            for ctx, key in zip(contexts, keys, strict=True)
        ]
        results.append(QuestionResult(q.question, tuple(q.golds), scored[0], scored[1:]))
    stats = BatchStats(
        questions=len(questions),
        prompts=len(sampling.samples),
        prompts_sampled=sampling.sampled,
        prompts_cached=sampling.cached,
        nli_pairs_requested=table.requested,
        nli_pairs_scored=len(table),
        nli_calls=1 if len(table) else 0,
        sampling_seconds=sampling.seconds,
        nli_seconds=nli_seconds,
    )
    return SeperBatch(results=results, samples=sampling.samples, stats=stats)


def _pairs_for(
    table: NLIPairTable,
    q: SeperQuestion,
    key: SampleKey,
    generations: Sequence[Generation],
) -> _Unit:
    # Surrounding spaces and the newline stop are not part of the answer.
    answers = [g.text.strip() for g in generations]
    golds = [g.strip() for g in q.golds]
    question = q.question.strip()
    return _Unit(
        key=key,
        response_gold=table.add_grid(question, answers, golds),
        gold_response=table.add_grid(question, golds, answers),
        response_response=table.add_grid(question, answers, answers, skip_diagonal=True),
    )


def _score_unit(unit: _Unit, generations: Sequence[Generation], probs: np.ndarray) -> SeperScore:
    weights = response_weights(response_scores([g.token_logprobs for g in generations]))
    return score_responses(
        weights,
        gather(probs, unit.response_gold),
        gather(probs, unit.gold_response).transpose(1, 0, 2),
        gather(probs, unit.response_response),
    )


def _context_result(
    ctx: SeperContext | None,
    key: SampleKey,
    score: SeperScore,
    baseline: SeperScore,
    generations: Sequence[Generation],
) -> ContextResult:
    raw = response_scores([g.token_logprobs for g in generations])
    responses = [
        ScoredResponse(
            text=g.text,
            tokens=list(g.tokens),
            token_logprobs=list(g.token_logprobs),
            finish_reason=g.finish_reason,
            score=float(s),
            weight=float(w),
        )
        for g, s, w in zip(generations, raw, score.weights, strict=True)
    ]
    return ContextResult(
        key=None if ctx is None else ctx.key,
        context="" if ctx is None else ctx.text,
        sample_key=key,
        responses=responses,
        score=score,
        delta=DeltaSeper.between(score, baseline),
    )
