"""Analyse a batch of generated outputs with SCAAR and build their rows (no storing here).

Per output: its tokens and log-probs (stored with the answer when the same generator made it,
else teacher-forced by the generator under the short-answer prompt with the output's context
passages), the leave-one-out similarities from the embedder (cosine of normalised vectors,
clipped to [0, 1]: the offline stand-in for the paper's cross-encoder), SCAAR's and FLARE's
triggers and queries, what each query retrieves from the collection's BM25 index and, when the
topic has gold answers, the answer regenerated from the SCAAR-retrieved passages and both
answers' scores (one regeneration per answer with the union of its retrievals; for a
one-sentence answer this is exactly the paper's Eq. 7), and the same for FLARE's retrievals,
so both methods' S_eff compare on the same answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from crux_app.models import GeneratedOutput
from evaluation.answers.generation import (
    AnswerRequest,
    ContextPassage,
    build_answer_prompt,
    generate_answers,
    greedy_answer_params,
)
from evaluation.backends.base import Embedder, Generation, Generator
from evaluation.backends.lazy_model import LazyModel
from evaluation.backends.token_usage import GENERATOR, acting_as
from evaluation.scaar.method.bm25 import Bm25Index
from evaluation.scaar.method.contributions import (
    AnswerAnalysis,
    ScaarSettings,
    analyse_answer,
    leave_one_out_texts,
    segment_answer,
)
from evaluation.scaar.method.efficiency import answer_score
from evaluation.scaar.models import ScaarAnalysis

SCORE_METRIC = "f1"
METHODS = ("scaar", "flare")  # whose retrievals an answer is regenerated from


@dataclass(frozen=True)
class ScaarModels:
    """The models' recorded ids, and how to load them (only called when a row is missing)."""

    generator_id: str
    embedder_id: str
    load_generator: Callable[[], Generator]
    load_embedder: Callable[[], Embedder]


@dataclass(frozen=True)
class AnalysisOptions:
    settings: ScaarSettings
    k: int  # passages retrieved per query
    refine: bool


def uses_stored_logprobs(output: GeneratedOutput, generator_id: str) -> bool:
    """The answer carries its own generation's tokens and log-probs from this generator."""
    return (
        bool(output.tokens)
        and output.generator == generator_id
        and len(output.tokens) == len(output.token_logprobs)
        and "".join(output.tokens) == output.text
    )


def scoring_prompt(output: GeneratedOutput) -> str:
    """The short-answer prompt with the output's question and context passages, in order."""
    passages = [c.passage.text for c in output.context.select_related("passage").all()]
    return build_answer_prompt(output.topic.request, passages)


class BatchAnalyser:
    """Analyses outputs with lazily loaded models; one embedder call per batch."""

    def __init__(self, models: ScaarModels, options: AnalysisOptions, index: Bm25Index) -> None:
        self.models = models
        self.options = options
        self.index = index
        self._generator = LazyModel("generator", models.generator_id, models.load_generator)
        self._embedder: Embedder | None = None

    @property
    def generator(self) -> Generator:
        return self._generator.get()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self.models.load_embedder()
        return self._embedder

    def token_streams(self, outputs: Sequence[GeneratedOutput]) -> list[tuple[Generation, str]]:
        """Each output's tokens with log-probs, and where they came from."""
        streams: dict[int, tuple[Generation, str]] = {}
        to_score = []
        for output in outputs:
            if uses_stored_logprobs(output, self.models.generator_id):
                stored = Generation(
                    text=output.text,
                    tokens=list(output.tokens),
                    token_logprobs=[float(x) for x in output.token_logprobs],
                )
                streams[output.pk] = (stored, ScaarAnalysis.LogprobSource.STORED)
            else:
                to_score.append(output)
        if to_score:
            prompts = [scoring_prompt(o) for o in to_score]
            with acting_as(GENERATOR):
                scored = self.generator.score_continuations(prompts, [o.text for o in to_score])
            for output, generation in zip(to_score, scored, strict=True):
                streams[output.pk] = (generation, ScaarAnalysis.LogprobSource.SCORED)
        return [streams[o.pk] for o in outputs]

    def similarities(self, question: str, words: Sequence[Sequence[str]]) -> list[list[float]]:
        """sim([q, s], [q, s without w_i]) for every word of every sentence."""
        texts_per_sentence = [leave_one_out_texts(question, w) for w in words]
        flat = [t for texts in texts_per_sentence for t in texts]
        vectors = self.embedder.embed(flat) if flat else np.zeros((0, 1))
        result, start = [], 0
        for texts in texts_per_sentence:
            block = vectors[start : start + len(texts)]
            start += len(texts)
            result.append([float(x) for x in block[1:] @ block[0]])
        return result

    def analyse(self, outputs: Sequence[GeneratedOutput]) -> list[ScaarAnalysis]:
        """Unsaved rows (without ``key``) for the outputs, in order."""
        streams = self.token_streams(outputs)
        analyses = []
        for output, (generation, _) in zip(outputs, streams, strict=True):
            sentences = segment_answer(generation.tokens, generation.token_logprobs)
            sims = self.similarities(output.topic.request, [s.words for s in sentences])
            analyses.append(
                analyse_answer(output.topic.request, sentences, sims, self.options.settings)
            )
        retrieved = [self.retrieve(a) for a in analyses]
        refined = self.refine(outputs, retrieved)
        return [
            self._row(output, source, analysis, hits, refined)
            for output, (_, source), analysis, hits in zip(
                outputs, streams, analyses, retrieved, strict=True
            )
        ]

    def retrieve(self, analysis: AnswerAnalysis) -> list[dict]:
        """Per sentence, the passages its SCAAR query (if triggered) and FLARE query retrieve."""
        k = self.options.k
        return [
            {
                "scaar": _hits(self.index, s.query, k) if s.triggered else [],
                "flare": _hits(self.index, s.flare_query, k) if s.flare_triggered else [],
            }
            for s in analysis.sentences
        ]

    def refine(
        self, outputs: Sequence[GeneratedOutput], retrieved: Sequence[list[dict]]
    ) -> dict[tuple[str, int], str]:
        """(method, output pk) -> the answer regenerated from what that method's queries
        retrieved, for outputs with gold answers whose sentences retrieved; one batched call
        for both methods."""
        if not self.options.refine:
            return {}
        requests = []
        for output, sentences in zip(outputs, retrieved, strict=True):
            if not output.topic.gold_answers:
                continue
            for method in METHODS:
                keys = list(dict.fromkeys(h["passage"] for s in sentences for h in s[method]))
                if keys:
                    found = output.collection.passages.filter(pk__in=keys)
                    texts = dict(found.values_list("pk", "text"))
                    context = tuple(ContextPassage(str(k), texts[k]) for k in keys)
                    key = f"{method}:{output.pk}"
                    requests.append(AnswerRequest(key, output.topic.request, context))
        if not requests:
            return {}
        answers = generate_answers(requests, self.generator, greedy_answer_params())
        refined = {}
        for answer in answers:
            method, pk = answer.request.key.split(":")
            refined[(method, int(pk))] = answer.generation.text
        return refined

    def _row(
        self,
        output: GeneratedOutput,
        source: str,
        analysis: AnswerAnalysis,
        retrieved: list[dict],
        refined_texts: dict[tuple[str, int], str],
    ) -> ScaarAnalysis:
        golds = [str(g) for g in output.topic.gold_answers]
        scored = self.options.refine and bool(golds)
        refined = refined_texts.get(("scaar", output.pk))
        flare_refined = refined_texts.get(("flare", output.pk))
        after_text = output.text if refined is None else refined
        detail = analysis.to_dict()
        for sentence, hits in zip(detail["sentences"], retrieved, strict=True):
            sentence["retrieved"] = hits["scaar"]
            sentence["flare_retrieved"] = hits["flare"]
        if scored:
            # FLARE's regeneration, scored like SCAAR's (no retrieval: the answer as it was).
            flare_after = output.text if flare_refined is None else flare_refined
            detail["flare"] = {
                "refined_text": flare_refined or "",
                "score_after": answer_score(flare_after, golds, SCORE_METRIC),
            }
        return ScaarAnalysis(
            output=output,
            collection_id=output.collection_id,
            topic_id=output.topic_id,
            generator=self.models.generator_id,
            embedder=self.models.embedder_id,
            logprob_source=source,
            n_sentences=len(analysis.sentences),
            n_retrievals=analysis.n_retrievals,
            flare_retrievals=analysis.flare_retrievals,
            score_metric=SCORE_METRIC if scored else "",
            score_before=answer_score(output.text, golds, SCORE_METRIC) if scored else None,
            score_after=answer_score(after_text, golds, SCORE_METRIC) if scored else None,
            refined_text=refined or "",
            detail=detail,
        )


def _hits(index: Bm25Index, query: str, k: int) -> list[dict]:
    return [{"passage": int(h.key), "score": h.score} for h in index.search(query, k)]
