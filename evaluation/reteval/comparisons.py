"""CompareGPT comparisons of RAG answers with semi-gold answers: judge the missing pairs, store
prompt, raw output and parsed verdict (None when the output says neither Yes nor No).

A comparison is keyed by (RAG answer, semi-gold answer, judge model, prompt version), so a
retried job never judges a pair twice. An empty semi-gold answer is no ground truth: it is not
compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import transaction

from crux_app.models import GeneratedOutput
from evaluation.backends.base import GenerationParams, Generator
from evaluation.backends.checked_generation import first_samples
from evaluation.backends.lazy_model import LazyModel
from evaluation.backends.token_usage import JUDGE
from evaluation.reteval.method.prompts import (
    JUDGE_MAX_NEW_TOKENS,
    PROMPT_VERSION,
    build_compare_prompt,
    parse_verdict,
)
from evaluation.reteval.models import Comparison


def judge_params() -> GenerationParams:
    return GenerationParams(
        max_new_tokens=JUDGE_MAX_NEW_TOKENS, temperature=0.0, num_samples=1, stop=("\n",)
    )


@dataclass(frozen=True)
class Pair:
    question: str
    rag: GeneratedOutput
    reference: GeneratedOutput


def comparable(references: Sequence[GeneratedOutput]) -> list[GeneratedOutput]:
    return [r for r in references if r.text.strip()]


class Comparer:
    """Judges the pairs of a batch that have no stored comparison by this judge yet."""

    def __init__(self, judge_id: str, load_judge: Callable[[], Generator]) -> None:
        self.judge_id = judge_id
        self._judge = LazyModel("judge", judge_id, load_judge)

    @property
    def judge(self) -> Generator:
        return self._judge.get()

    def stored(self, rag_ids: Sequence[int]) -> dict[tuple[int, int], Comparison]:
        rows = Comparison.objects.filter(
            rag_output_id__in=rag_ids, judge=self.judge_id, prompt_version=PROMPT_VERSION
        )
        return {(c.rag_output_id, c.reference_id): c for c in rows}

    def compare(self, pairs: Sequence[Pair]) -> int:
        """Judge and store the pairs not compared yet; returns how many were judged."""
        done = self.stored([p.rag.pk for p in pairs])
        todo = [p for p in pairs if (p.rag.pk, p.reference.pk) not in done]
        if not todo:
            return 0
        prompts = [build_compare_prompt(p.question, [p.reference.text], p.rag.text) for p in todo]
        outputs = first_samples(self.judge, prompts, judge_params(), role=JUDGE)
        rows = []
        for pair, prompt, output in zip(todo, prompts, outputs, strict=True):
            raw = output.text
            rows.append(
                Comparison(
                    rag_output=pair.rag,
                    reference=pair.reference,
                    judge=self.judge_id,
                    prompt_version=PROMPT_VERSION,
                    prompt=prompt,
                    raw_output=raw,
                    verdict=parse_verdict(raw),
                )
            )
        # ON CONFLICT DO NOTHING: a pair another worker judged first keeps its row.
        with transaction.atomic():
            Comparison.objects.bulk_create(rows, ignore_conflicts=True)
        return len(rows)
