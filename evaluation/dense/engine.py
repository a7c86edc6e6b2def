"""DENSE's model calls, batched across questions and cached: rephrase (B.1), greedy answers
(B.4), the NLI judge (B.2 or an NLI model) and self-evaluation (B.3).

Every step of ``DenseEngine.evaluate`` sends one batched call for all the questions it is
given; every prompt and NLI pair is cached, so a repeated context (a refinement step that
comes back to a known context, a retried batch) costs nothing. Greedy decoding makes the
results reproducible. Two answers with the same text (after stripping) entail each other
without asking the judge: a small LLM judge can call a text "neutral" to itself, which would
make identical answers disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.special import logsumexp

from evaluation.backends.base import NLI_LABELS, GenerationParams, Generator, NLIModel
from evaluation.backends.checked_generation import first_samples
from evaluation.backends.token_usage import GENERATOR, acting_as
from evaluation.dense.method.graph import (
    DEFAULT_THRESHOLD,
    certain_chunks,
    chunk_labels,
    degree_entropy,
    entailment_weights,
    equivalent,
    is_uncertain,
)
from evaluation.dense.method.prompts import (
    NO_SPELLINGS,
    YES_SPELLINGS,
    qa_prompt,
    rephrase_prompt,
    self_evaluation_prompt,
)

ENTAILMENT = NLI_LABELS.index("entailment")


@dataclass(frozen=True)
class DenseSettings:
    threshold: float = DEFAULT_THRESHOLD
    answer_max_new_tokens: int = 24
    rephrase_max_new_tokens: int = 96
    check_rephrase: bool = True  # judge each rephrase against its original (faithfulness)

    def __post_init__(self) -> None:
        if self.threshold < 0:
            raise ValueError(f"threshold must be >= 0, got {self.threshold!r}")
        for name in ("answer_max_new_tokens", "rephrase_max_new_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


@dataclass(frozen=True)
class DenseQuestion:
    key: str  # the caller's id, handed back untouched
    question: str
    chunks: tuple[str, ...]


@dataclass
class CallCounts:
    """Model work done: batched calls, and the prompts / pairs they carried."""

    generate_calls: int = 0
    generated_prompts: int = 0
    nli_calls: int = 0
    nli_pairs: int = 0
    self_eval_prompts: int = 0
    cache_hits: int = 0  # prompts and pairs answered from the cache
    identical_pairs: int = 0  # pairs of identical texts, entailment without a call

    @property
    def llm_inferences(self) -> int:
        """Model inferences in the paper's sense (one per prompt or NLI pair)."""
        return self.generated_prompts + self.nli_pairs + self.self_eval_prompts

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "llm_inferences": self.llm_inferences}

    def minus(self, earlier: CallCounts) -> CallCounts:
        a, b = asdict(self), asdict(earlier)
        return CallCounts(**{name: a[name] - b[name] for name in a})


@dataclass
class DenseEvaluation:
    question: DenseQuestion
    rephrased: list[str]
    responses: list[str]  # r_0 (original context), r_1..r_k (chunk i rephrased)
    directed: list[list[int]]  # directed[i][j] = NLI(r_i, r_j)
    weights: list[list[float]]  # W
    dse: float
    uncertain: bool
    labels: list[str]  # per chunk, context order
    ablation_answers: dict[int, str]  # chunk index -> answer without it (uncertain chunks)
    ablation_equivalent: dict[int, bool]
    rephrase_faithful: list[bool] | None = None  # chunk <-> rephrase entail both ways

    @property
    def answer(self) -> str:
        return self.responses[0]

    def to_dict(self) -> dict[str, object]:
        return {
            "question": self.question.question,
            "chunks": list(self.question.chunks),
            "rephrased": self.rephrased,
            "responses": self.responses,
            "directed": self.directed,
            "W": self.weights,
            "dse": self.dse,
            "uncertain": self.uncertain,
            "labels": self.labels,
            "ablation_answers": {str(i): a for i, a in self.ablation_answers.items()},
            "ablation_equivalent": {str(i): v for i, v in self.ablation_equivalent.items()},
            "rephrase_faithful": self.rephrase_faithful,
        }


@dataclass
class DenseCache:
    """Generated texts by prompt, NLI decisions by (premise, hypothesis, question), and
    self-evaluation decisions by prompt."""

    texts: dict[str, str] = field(default_factory=dict)
    entails: dict[tuple[str, str, str], bool] = field(default_factory=dict)
    sufficient: dict[str, bool] = field(default_factory=dict)


class DenseEngine:
    """DENSE for many questions at once on one generator and one NLI judge."""

    def __init__(
        self,
        generator: Generator,
        nli: NLIModel,
        settings: DenseSettings | None = None,
        cache: DenseCache | None = None,
    ) -> None:
        self.generator = generator
        self.nli = nli
        self.settings = settings or DenseSettings()
        self.cache = cache if cache is not None else DenseCache()
        self.counts = CallCounts()

    # Batched, cached primitives

    def _generate(self, prompts: Sequence[str], max_new_tokens: int, stop: tuple[str, ...]):
        missing = list(dict.fromkeys(p for p in prompts if p not in self.cache.texts))
        self.counts.cache_hits += len(prompts) - len(missing)
        if missing:
            params = GenerationParams(
                max_new_tokens=max_new_tokens, temperature=0.0, num_samples=1, stop=stop
            )
            outputs = first_samples(self.generator, missing, params)
            self.counts.generate_calls += 1
            self.counts.generated_prompts += len(missing)
            for prompt, output in zip(missing, outputs, strict=True):
                self.cache.texts[prompt] = output.text.strip()
        return [self.cache.texts[p] for p in prompts]

    def rephrase(self, chunks: Sequence[str]) -> list[str]:
        """c'_i for each chunk, each rephrased on its own (B.1)."""
        prompts = [rephrase_prompt(c) for c in chunks]
        return self._generate(prompts, self.settings.rephrase_max_new_tokens, ())

    def answer(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
        """Greedy short answers (B.4) to (question, context chunks) items."""
        prompts = [qa_prompt(q, chunks) for q, chunks in items]
        return self._generate(prompts, self.settings.answer_max_new_tokens, ("\n",))

    def entails(self, pairs: Sequence[tuple[str, str, str]]) -> list[bool]:
        """(premise, hypothesis, question) -> does the judge say premise entails hypothesis."""
        out: list[bool | None] = []
        missing: list[tuple[str, str, str]] = []
        for premise, hypothesis, question in pairs:
            key = (premise, hypothesis, question)
            if premise.strip() == hypothesis.strip():
                self.counts.identical_pairs += 1
                out.append(True)
            elif key in self.cache.entails:
                self.counts.cache_hits += 1
                out.append(self.cache.entails[key])
            else:
                out.append(None)
                missing.append(key)
        unique = list(dict.fromkeys(missing))
        self.counts.cache_hits += len(missing) - len(unique)
        if unique:
            probs = self.nli.predict([(p, h) for p, h, _ in unique], [q for _, _, q in unique])
            if probs.shape != (len(unique), len(NLI_LABELS)):
                raise ValueError(
                    f"NLI model {self.nli.model_id!r} returned shape {probs.shape} "
                    f"for {len(unique)} pairs"
                )
            self.counts.nli_calls += 1
            self.counts.nli_pairs += len(unique)
            for key, row in zip(unique, probs, strict=True):
                self.cache.entails[key] = bool(int(np.argmax(row)) == ENTAILMENT)
        return [self.cache.entails[p] if v is None else v for p, v in zip(pairs, out, strict=True)]

    def sufficient(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[bool]:
        """B.3: does the context suffice? "yes" when the yes spellings are likelier than no."""
        prompts = [self_evaluation_prompt(q, chunks) for q, chunks in items]
        missing = list(dict.fromkeys(p for p in prompts if p not in self.cache.sufficient))
        self.counts.cache_hits += len(prompts) - len(missing)
        if missing:
            candidates = [*YES_SPELLINGS, *NO_SPELLINGS]
            with acting_as(GENERATOR):  # B.3: the generator judges its own context
                scores = self.generator.continuation_logprobs(missing, candidates)
            yes = logsumexp(scores[:, : len(YES_SPELLINGS)], axis=1)
            no = logsumexp(scores[:, len(YES_SPELLINGS) :], axis=1)
            self.counts.self_eval_prompts += len(missing)
            for prompt, y, n in zip(missing, yes, no, strict=True):
                self.cache.sufficient[prompt] = bool(y > n)
        return [self.cache.sufficient[p] for p in prompts]

    # DENSE for a batch of questions

    def evaluate(self, questions: Sequence[DenseQuestion]) -> list[DenseEvaluation]:
        """DSE, W and chunk labels of every question, each model step batched over all."""
        for q in questions:
            if not q.chunks:
                raise ValueError(f"question {q.key!r} has no context chunk")
        unique_chunks = list(dict.fromkeys(c for q in questions for c in q.chunks))
        rephrased_of = dict(zip(unique_chunks, self.rephrase(unique_chunks), strict=True))
        contexts = []
        for q in questions:
            contexts.append((q.question, q.chunks))
            for i in range(len(q.chunks)):
                edited = list(q.chunks)
                edited[i] = rephrased_of[q.chunks[i]]
                contexts.append((q.question, tuple(edited)))
        answers = self.answer(contexts)
        responses, start = [], 0
        for q in questions:
            responses.append(answers[start : start + len(q.chunks) + 1])
            start += len(q.chunks) + 1
        # Every ordered pair of responses, plus each chunk against its rephrase, in one call.
        pairs = []
        for q, r in zip(questions, responses, strict=True):
            pairs += [(a, b, q.question) for a in r for b in r]
            if self.settings.check_rephrase:
                for c in q.chunks:
                    pairs += [(c, rephrased_of[c], q.question), (rephrased_of[c], c, q.question)]
        decisions = iter(self.entails(pairs))
        partial = []
        for q, r in zip(questions, responses, strict=True):
            n = len(r)
            directed = [[int(next(decisions)) for _ in range(n)] for _ in range(n)]
            faithful = None
            if self.settings.check_rephrase:
                faithful = [equivalent(next(decisions), next(decisions)) for _ in q.chunks]
            partial.append((directed, faithful))
        return self._diagnose(questions, rephrased_of, responses, partial)

    def _diagnose(self, questions, rephrased_of, responses, partial) -> list[DenseEvaluation]:
        """Answer again without each uncertain chunk (one batched call) and label the chunks."""
        weights = [entailment_weights(d) for d, _ in partial]
        ablations = []  # (question index, chunk index)
        for qi, w in enumerate(weights):
            for ci, certain in enumerate(certain_chunks(w)):
                if not certain:
                    ablations.append((qi, ci))
        ablated = self.answer(
            [
                (questions[qi].question, questions[qi].chunks[:ci] + questions[qi].chunks[ci + 1 :])
                for qi, ci in ablations
            ]
        )
        pairs = []
        for (qi, _), text in zip(ablations, ablated, strict=True):
            r0, question = responses[qi][0], questions[qi].question
            pairs += [(r0, text, question), (text, r0, question)]
        decisions = self.entails(pairs)
        answers: list[dict[int, str]] = [{} for _ in questions]
        same: list[dict[int, bool]] = [{} for _ in questions]
        for n, ((qi, ci), text) in enumerate(zip(ablations, ablated, strict=True)):
            answers[qi][ci] = text
            same[qi][ci] = equivalent(decisions[2 * n], decisions[2 * n + 1])
        out = []
        for qi, q in enumerate(questions):
            w = weights[qi]
            dse = degree_entropy(w)
            out.append(
                DenseEvaluation(
                    question=q,
                    rephrased=[rephrased_of[c] for c in q.chunks],
                    responses=list(responses[qi]),
                    directed=partial[qi][0],
                    weights=w.tolist(),
                    dse=dse,
                    uncertain=is_uncertain(dse, self.settings.threshold),
                    labels=chunk_labels(w, same[qi]),
                    ablation_answers=answers[qi],
                    ablation_equivalent=same[qi],
                    rephrase_faithful=partial[qi][1],
                )
            )
        return out
