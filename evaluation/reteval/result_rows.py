"""One ``RetEvalResult`` per (question, run, k, judge): Recall/Precision/F1@k of the run's top-k,
the aggregated CompareGPT verdict, lexical QA correctness and the candidate failure category.

Computed from stored rows only (answers, comparisons, run entries, gold qrels), so refreshing
the results never needs a model.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from django.db import transaction

from crux_app.models import GeneratedOutput, Job, Passage, Run, RunEntry, Topic
from evaluation.reteval.comparisons import comparable
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.method.verdicts import (
    PrelabelInput,
    RetrievedPassage,
    aggregate_verdicts,
    prelabel,
    retrieval_scores,
)
from evaluation.reteval.models import Comparison, RetEvalResult
from evaluation.shared.lexical_match import lexical_match


def top_k(run: Run, topic_ids: Sequence[int], k: int) -> dict[int, list[Passage]]:
    """Topic pk -> the run's first k passages, in rank order."""
    entries = (
        RunEntry.objects.filter(run=run, topic_id__in=topic_ids)
        .select_related("passage")
        .order_by("topic_id", "rank", "line_order")
    )
    out: dict[int, list[Passage]] = {t: [] for t in topic_ids}
    for entry in entries:
        if len(out[entry.topic_id]) < k:
            out[entry.topic_id].append(entry.passage)
    return out


def store_results(
    job: Job | None,
    run: Run,
    topics: Sequence[Topic],
    ks: Sequence[int],
    rag: Mapping[tuple[int, int], GeneratedOutput],
    references: Mapping[int, Sequence[GeneratedOutput]],
    gold: Mapping[int, Sequence[Passage]],
    judge_id: str,
) -> int:
    """Write (update or create) the result rows of ``topics`` at every k; returns the count."""
    topic_ids = [t.pk for t in topics if gold[t.pk]]
    verdicts: dict[int, dict[int, bool | None]] = defaultdict(dict)
    comparisons = Comparison.objects.filter(
        rag_output_id__in=[o.pk for o in rag.values()],
        judge=judge_id,
        prompt_version=PROMPT_VERSION,
    )
    for c in comparisons:
        verdicts[c.rag_output_id][c.reference_id] = c.verdict
    written = 0
    with transaction.atomic():
        for k in ks:
            ranked = top_k(run, topic_ids, k)
            gold_ids = {t: {p.external_id for p in gold[t]} for t in topic_ids}
            scores = retrieval_scores(
                {t: [p.external_id for p in ranked[t]] for t in topic_ids}, gold_ids, k
            )
            for topic in topics:
                if topic.pk not in scores or (topic.pk, k) not in rag:
                    continue
                output = rag[(topic.pk, k)]
                refs = comparable(references.get(topic.pk, []))
                given = verdicts.get(output.pk, {})
                found = [given[r.pk] for r in refs if r.pk in given]
                score = scores[topic.pk]
                verdict = aggregate_verdicts(found) if len(found) == len(refs) else None
                golds = tuple(str(a) for a in topic.gold_answers)
                label = prelabel(
                    PrelabelInput(
                        recall=score.recall,
                        verdict=verdict,
                        rag_answer=output.text,
                        semi_gold_answers=tuple(r.text for r in refs),
                        gold_answers=golds,
                        retrieved=tuple(
                            RetrievedPassage(p.text, p.external_id in gold_ids[topic.pk])
                            for p in ranked[topic.pk]
                        ),
                        gold_passages=tuple(p.text for p in gold[topic.pk]),
                    )
                )
                RetEvalResult.objects.update_or_create(
                    topic=topic,
                    run=run,
                    k=k,
                    judge=judge_id,
                    prompt_version=PROMPT_VERSION,
                    defaults={
                        "rag_output": output,
                        "recall": score.recall,
                        "precision": score.precision,
                        "f1": score.f1,
                        "verdict": verdict,
                        "n_yes": sum(1 for v in found if v is True),
                        "n_no": sum(1 for v in found if v is False),
                        "n_unparsable": sum(1 for v in found if v is None),
                        "answer_correct": lexical_match(output.text, golds) if golds else None,
                        "category": label.category if label else "",
                        "category_reason": label.reason if label else "",
                        "job": job,
                    },
                )
                written += 1
    return written
