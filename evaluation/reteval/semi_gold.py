"""Semi-gold answers: N samples (paper: 3 at temperature 0.5) from a question's gold passages,
stored as ``GeneratedOutput`` rows of kind ``answer`` whose system is ``semi-gold``.

External ids are ``semi-gold/{topic}/{i}`` (i = 1..N): a re-run finds them and samples nothing,
and a run asking for more samples only adds the missing indices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from django.db import transaction

from crux_app.models import GeneratedOutput, OutputContext, Passage, PassageQrel, Topic
from crux_app.vocabulary import QA_GOLD_SOURCE, SEMI_GOLD_PREFIX
from evaluation.backends.base import GenerationParams, Generator
from evaluation.backends.checked_generation import generate_checked
from evaluation.reteval.method.prompts import build_reteval_answer_prompt

SEMI_GOLD_SYSTEM = SEMI_GOLD_PREFIX


@dataclass(frozen=True)
class SemiGoldSettings:
    n_samples: int
    temperature: float
    seed: int
    max_new_tokens: int

    def params(self) -> GenerationParams:
        return GenerationParams(
            max_new_tokens=self.max_new_tokens,
            temperature=self.temperature,
            num_samples=self.n_samples,
            stop=("\n",),
            seed=self.seed,
        )


def semi_gold_external_id(topic_external_id: str, index: int) -> str:
    return f"{SEMI_GOLD_SYSTEM}/{topic_external_id}/{index}"


def gold_passages(topic_ids: Sequence[int]) -> dict[int, list[Passage]]:
    """Topic pk -> its gold passages (``qa_gold`` qrels, grade > 0), by passage external id."""
    rows = (
        PassageQrel.objects.filter(topic_id__in=topic_ids, source=QA_GOLD_SOURCE, grade__gt=0)
        .select_related("passage")
        .order_by("passage__external_id")
    )
    out: dict[int, list[Passage]] = {t: [] for t in topic_ids}
    for qrel in rows:
        out[qrel.topic_id].append(qrel.passage)
    return out


def usable(passages: Sequence[Passage]) -> list[Passage]:
    """Passages a model can read (text available and not blank)."""
    return [p for p in passages if p.has_text and p.text.strip()]


class SemiGoldAnswerer:
    """Makes sure each topic has its N semi-gold answers; samples only the missing ones."""

    def __init__(
        self, settings: SemiGoldSettings, generator_provider: Callable[[], Generator], job_id: int
    ) -> None:
        self.settings = settings
        self._generator_provider = generator_provider
        self.job_id = job_id

    def ensure(
        self, topics: Sequence[Topic], gold: Mapping[int, Sequence[Passage]]
    ) -> tuple[dict[int, list[GeneratedOutput]], int]:
        """Topic pk -> its semi-gold answers (index order), and how many were generated."""
        n = self.settings.n_samples
        keys = {
            (t.pk, i): semi_gold_external_id(t.external_id, i)
            for t in topics
            for i in range(1, n + 1)
        }
        collection_id = topics[0].collection_id if topics else None
        stored = set(
            GeneratedOutput.objects.filter(
                collection_id=collection_id, external_id__in=keys.values()
            ).values_list("external_id", flat=True)
        )
        missing = [t for t in topics if any(keys[(t.pk, i)] not in stored for i in range(1, n + 1))]
        missing = [t for t in missing if usable(gold[t.pk])]
        if missing:
            self._generate(missing, gold, keys, stored)
        outputs = GeneratedOutput.objects.filter(
            collection_id=collection_id, external_id__in=keys.values()
        )
        by_key = {o.external_id: o for o in outputs}
        answers = {
            t.pk: [by_key[keys[(t.pk, i)]] for i in range(1, n + 1) if keys[(t.pk, i)] in by_key]
            for t in topics
        }
        generated = sum(1 for key in keys.values() if key in by_key and key not in stored)
        return answers, generated

    def _generate(self, topics, gold, keys, stored) -> None:
        generator = self._generator_provider()
        prompts = [
            build_reteval_answer_prompt(t.request, [p.text for p in usable(gold[t.pk])])
            for t in topics
        ]
        samples = generate_checked(generator, prompts, self.settings.params())
        with transaction.atomic():
            for topic, generations in zip(topics, samples, strict=True):
                for index, generation in enumerate(generations, start=1):
                    key = keys[(topic.pk, index)]
                    if key in stored:
                        continue
                    self._store(topic, key, index, generation, generator.model_id, gold[topic.pk])

    def _store(self, topic, key, index, generation, model_id, passages) -> None:
        output, created = GeneratedOutput.objects.get_or_create(
            collection_id=topic.collection_id,
            external_id=key,
            defaults={
                "topic": topic,
                "system": SEMI_GOLD_SYSTEM,
                "kind": GeneratedOutput.Kind.ANSWER,
                "text": generation.text,
                "generator": model_id,
                "context_type": "gold",
                "tokens": list(generation.tokens),
                "token_logprobs": [float(lp) for lp in generation.token_logprobs],
                "metadata": {
                    "question": topic.request,
                    "sample": index,
                    "temperature": self.settings.temperature,
                    "seed": self.settings.seed,
                    "finish_reason": generation.finish_reason,
                    "job_id": self.job_id,
                },
            },
        )
        if created:
            OutputContext.objects.bulk_create(
                OutputContext(output=output, passage=p, position=i)
                for i, p in enumerate(usable(passages))
            )
