"""Which items a new campaign gets from its collection, and what each item shows.

Modes: ``every`` item of the task, a seeded ``sample`` of N of them, or for passage rating
CRUX's ``crux`` protocol: per judged (topic, passage), one sub-question the LLM judge rated
answerable (rating >= tau) and one it rated not answerable, each drawn at random (a passage
with only one kind gets only that one).

What an item is, per task:

1. passage rating: a real sub-question x a passage of its topic's pool (passages its runs
   rank and its qrels name, with text available);
2. report coverage: a generated output of kind ``report`` with its topic's real sub-questions;
3. answer equivalence: a generated output of kind ``answer`` on a topic with gold answers;
4. retrieval failure category: a RAG answer (kind ``answer``, with retrieved passages) on a
   topic that has gold passages (passage qrels of source ``qa_gold``) and a semi-gold answer.
   Convention (``crux_app.vocabulary``): a *semi-gold* answer is a generated answer whose
   system name starts with ``semi-gold`` (generated from the gold passages, LLM-retEval's
   reference answer); such outputs are references, never items of tasks 3 and 4 themselves.
   The retrieved passages are the answer's own context (OutputContext), or else the top
   ``metadata.k`` (default 5) of its run.

Payloads hold the texts as shown (a snapshot); they never include any judge's label.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from annotation.task_types.registry import TASK_TYPE_REGISTRY, ItemSpec, TaskType
from crux_app.models import (
    Collection,
    GeneratedOutput,
    Judge,
    Judgment,
    OutputContext,
    Passage,
    PassageQrel,
    RunEntry,
    SubQuestion,
    Topic,
)
from crux_app.vocabulary import QA_GOLD_SOURCE, SEMI_GOLD_PREFIX

EVERY = "every"
SAMPLE = "sample"
CRUX = "crux"
MODES = {EVERY: "Every item", SAMPLE: "A random sample", CRUX: "CRUX protocol (passage rating)"}

DEFAULT_RETRIEVED_K = 5


class SelectionError(ValueError):
    """The collection cannot give items for the chosen task or mode; names the form field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def select_items(
    collection: Collection,
    task_type: str,
    mode: str,
    *,
    sample_size: int | None = None,
    seed: int = 0,
    judge: Judge | None = None,
    tau: int = 3,
    output_ids: Sequence[int] | None = None,
) -> list[ItemSpec]:
    """The items of a new campaign, in a stable order (topic, then position / output id).

    ``output_ids`` (tasks 2-4) keeps only those outputs among the task's eligible ones, e.g.
    the RAG answers LLM-retEval found disagreeing with Recall@k.
    """
    keys = select_keys(
        collection,
        task_type,
        mode,
        sample_size=sample_size,
        seed=seed,
        judge=judge,
        tau=tau,
        output_ids=output_ids,
    )
    return _entry(task_type).item_specs(keys)


def _entry(task_type: str) -> TaskType:
    if task_type not in TASK_TYPE_REGISTRY:
        raise SelectionError("task_type", f"unknown task type '{task_type}'")
    return TASK_TYPE_REGISTRY[task_type]


def select_keys(
    collection: Collection,
    task_type: str,
    mode: str,
    *,
    sample_size: int | None = None,
    seed: int = 0,
    judge: Judge | None = None,
    tau: int = 3,
    output_ids: Sequence[int] | None = None,
) -> list[Any]:
    """What ``select_items`` picks, as keys only: (topic, sub-question, passage) ids for
    passage rating, output ids otherwise. Reads no texts: the new-campaign form's item count."""
    rng = random.Random(seed)
    entry = _entry(task_type)
    if mode == CRUX:
        # The CRUX protocol pairs a judge's ratings of passages: passage rating's own mode.
        if not entry.crux_pairs:
            raise SelectionError("selection_mode", "the CRUX protocol applies to passage rating")
        if judge is None:
            raise SelectionError("crux_judge", "choose the LLM judge whose ratings pick items")
        keys = _crux_pairs(collection, judge, tau, rng)
    else:
        keys = entry.eligible_keys(collection)
        if entry.selects_outputs and output_ids is not None:
            wanted = set(output_ids)
            keys = [pk for pk in keys if pk in wanted]
    if mode == SAMPLE:
        if not sample_size or sample_size < 1:
            raise SelectionError("sample_size", "give the number of items to sample")
        if sample_size < len(keys):
            keys = [keys[i] for i in sorted(rng.sample(range(len(keys)), sample_size))]
    elif mode not in (EVERY, CRUX):
        raise SelectionError("selection_mode", f"unknown selection mode '{mode}'")
    if not keys:
        raise SelectionError(
            "task_type",
            f"collection '{collection.name}' has no items for this task: it needs {entry.needs}",
        )
    return keys


# ---- Task 1 -----------------------------------------------------------------------------


def _topic_pools(collection: Collection) -> dict[int, set[int]]:
    pools: dict[int, set[int]] = defaultdict(set)
    with_text = Passage.objects.filter(collection=collection, has_text=True).values("pk")
    for model in (RunEntry, PassageQrel):
        rows = model.objects.filter(topic__collection=collection, passage_id__in=with_text)
        for topic_id, passage_id in rows.values_list("topic_id", "passage_id").distinct():
            pools[topic_id].add(passage_id)
    return pools


def _real_subquestions(collection: Collection) -> Any:
    return SubQuestion.objects.filter(topic__collection=collection, is_placeholder=False)


def rating_pairs(collection: Collection) -> list[tuple[int, int, int]]:
    """(topic, sub-question, passage) keys of every pooled pair."""
    pools = _topic_pools(collection)
    passage_order = _passage_order(p for pool in pools.values() for p in pool)
    keys = []
    rows = _real_subquestions(collection).order_by("topic__external_id", "position")
    for sq_id, topic_id in rows.values_list("id", "topic_id"):
        for passage_id in sorted(pools.get(topic_id, ()), key=passage_order.__getitem__):
            keys.append((topic_id, sq_id, passage_id))
    return keys


def _passage_order(passage_ids: Iterable[int]) -> dict[int, str]:
    return dict(Passage.objects.filter(pk__in=set(passage_ids)).values_list("pk", "external_id"))


def _crux_pairs(
    collection: Collection, judge: Judge, tau: int, rng: random.Random
) -> list[tuple[int, int, int]]:
    groups: dict[tuple[int, int], tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    rows = (
        Judgment.objects.filter(
            judge=judge,
            task=Judgment.Task.PASSAGE_RATING,
            topic__collection=collection,
            passage__has_text=True,
            subquestion__is_placeholder=False,
            rating__isnull=False,
        )
        .order_by("topic__external_id", "passage__external_id", "subquestion__position")
        .values_list("topic_id", "passage_id", "subquestion_id", "rating")
    )
    for topic_id, passage_id, sq_id, rating in rows:
        groups[topic_id, passage_id][0 if rating >= tau else 1].append(sq_id)
    keys = []
    for (topic_id, passage_id), (answerable, unanswerable) in groups.items():
        for candidates in (answerable, unanswerable):
            if candidates:
                keys.append((topic_id, rng.choice(candidates), passage_id))
    return keys


def rating_specs(keys: Sequence[tuple[int, int, int]], kind: str) -> list[ItemSpec]:
    """The passage-rating item (of task ``kind``) of each (topic, sub-question, passage) key,
    in key order."""
    topics = {t.pk: t for t in Topic.objects.filter(pk__in={k[0] for k in keys})}
    subquestions = {s.pk: s for s in SubQuestion.objects.filter(pk__in={k[1] for k in keys})}
    passages = {p.pk: p for p in Passage.objects.filter(pk__in={k[2] for k in keys})}
    specs = []
    for topic_id, sq_id, passage_id in keys:
        topic, sq, passage = topics[topic_id], subquestions[sq_id], passages[passage_id]
        payload = {
            "topic": topic.external_id,
            "request": topic.request,
            "question": sq.text,
            "position": sq.position,
            "passage_id": passage.external_id,
            "passage": passage.text,
        }
        specs.append(ItemSpec(kind, payload, topic_id, sq_id, passage_id))
    return specs


# ---- Tasks 2-4 --------------------------------------------------------------------------


def _outputs(collection: Collection) -> Any:
    return GeneratedOutput.objects.filter(collection=collection).order_by(
        "topic__external_id", "external_id"
    )


def _answers(collection: Collection) -> Any:
    """The collection's generated answers that are items (semi-gold answers are references)."""
    return (
        _outputs(collection)
        .filter(kind=GeneratedOutput.Kind.ANSWER)
        .exclude(system__startswith=SEMI_GOLD_PREFIX)
    )


def coverage_outputs(collection: Collection) -> list[int]:
    """Generated reports on topics with real sub-questions."""
    with_questions = _real_subquestions(collection).values("topic_id")
    outputs = _outputs(collection).filter(
        kind=GeneratedOutput.Kind.REPORT, topic_id__in=with_questions
    )
    return list(outputs.values_list("pk", flat=True))


def equivalence_outputs(collection: Collection) -> list[int]:
    """Generated answers on topics with gold answers."""
    answers = _answers(collection)
    return [pk for pk, gold in answers.values_list("pk", "topic__gold_answers") if gold]


def failure_outputs(collection: Collection) -> list[int]:
    """RAG answers with retrieved passages on topics with gold passages and a semi-gold
    answer."""
    outputs = _outputs(collection)
    answers = _answers(collection)
    semi_gold_topics = outputs.filter(
        kind=GeneratedOutput.Kind.ANSWER, system__startswith=SEMI_GOLD_PREFIX
    ).values("topic_id")
    gold_topics = PassageQrel.objects.filter(
        topic__collection=collection, source=QA_GOLD_SOURCE
    ).values("topic_id")
    candidates = answers.filter(topic_id__in=semi_gold_topics).filter(topic_id__in=gold_topics)
    retrieved = _retrieved_passages(candidates)
    return [pk for pk in candidates.values_list("pk", flat=True) if retrieved.get(pk)]


def coverage_specs(output_ids: Sequence[int], kind: str) -> list[ItemSpec]:
    outputs = GeneratedOutput.objects.select_related("topic").in_bulk(output_ids)
    questions: dict[int, list[dict]] = defaultdict(list)
    topic_ids = {o.topic_id for o in outputs.values()}
    rows = SubQuestion.objects.filter(topic_id__in=topic_ids, is_placeholder=False)
    for sq in rows.order_by("topic_id", "position"):
        questions[sq.topic_id].append(
            {"position": sq.position, "text": sq.text, "subquestion_id": sq.pk}
        )
    specs = []
    for pk in output_ids:
        output = outputs[pk]
        payload = {
            "topic": output.topic.external_id,
            "request": output.topic.request,
            "output_id": output.external_id,
            "report": output.text,
            "questions": questions[output.topic_id],
        }
        specs.append(ItemSpec(kind, payload, output.topic_id, output_id=pk))
    return specs


def equivalence_specs(output_ids: Sequence[int], kind: str) -> list[ItemSpec]:
    outputs = GeneratedOutput.objects.select_related("topic").in_bulk(output_ids)
    specs = []
    for pk in output_ids:
        output = outputs[pk]
        payload = {
            "topic": output.topic.external_id,
            "output_id": output.external_id,
            "question": output.topic.request,
            "gold_answers": list(output.topic.gold_answers),
            "response": output.text,
        }
        specs.append(ItemSpec(kind, payload, output.topic_id, output_id=pk))
    return specs


def _retrieved_passages(outputs: Any) -> dict[int, list[int]]:
    """Output pk -> passage pks it was generated from, in rank order."""
    retrieved: dict[int, list[int]] = defaultdict(list)
    rows = OutputContext.objects.filter(output__in=outputs).order_by("output_id", "position")
    for output_id, passage_id in rows.values_list("output_id", "passage_id"):
        retrieved[output_id].append(passage_id)
    for output in outputs.filter(run__isnull=False).exclude(pk__in=list(retrieved)):
        k = int((output.metadata or {}).get("k") or DEFAULT_RETRIEVED_K)
        entries = RunEntry.objects.filter(run_id=output.run_id, topic_id=output.topic_id)
        retrieved[output.pk] = list(
            entries.order_by("rank", "line_order").values_list("passage_id", flat=True)[:k]
        )
    return retrieved


def failure_specs(output_ids: Sequence[int], kind: str) -> list[ItemSpec]:
    outputs = GeneratedOutput.objects.select_related("topic").in_bulk(output_ids)
    topic_ids = {o.topic_id for o in outputs.values()}
    semi_gold: dict[int, list[GeneratedOutput]] = defaultdict(list)
    references = GeneratedOutput.objects.filter(
        topic_id__in=topic_ids,
        kind=GeneratedOutput.Kind.ANSWER,
        system__startswith=SEMI_GOLD_PREFIX,
    ).order_by("external_id")
    for reference in references:
        semi_gold[reference.topic_id].append(reference)
    gold: dict[int, list[int]] = defaultdict(list)
    qrels = PassageQrel.objects.filter(topic_id__in=topic_ids, source=QA_GOLD_SOURCE)
    for topic_id, passage_id in qrels.order_by("passage__external_id").values_list(
        "topic_id", "passage_id"
    ):
        gold[topic_id].append(passage_id)
    retrieved = _retrieved_passages(GeneratedOutput.objects.filter(pk__in=output_ids))
    wanted = {p for ids in [*gold.values(), *retrieved.values()] for p in ids}
    passages = Passage.objects.in_bulk(wanted)
    specs = []
    for pk in output_ids:
        output = outputs[pk]
        gold_ids = gold[output.topic_id]
        references = semi_gold[output.topic_id]
        payload = {
            "topic": output.topic.external_id,
            "output_id": output.external_id,
            "question": output.topic.request,
            "gold_answers": list(output.topic.gold_answers),
            "gold_passages": [
                {"id": passages[p].external_id, "text": passages[p].text} for p in gold_ids
            ],
            "retrieved": [
                {
                    "id": passages[p].external_id,
                    "text": passages[p].text,
                    "rank": i + 1,
                    "is_gold": p in gold_ids,
                }
                for i, p in enumerate(retrieved[pk])
            ],
            "rag_answer": output.text,
            "semi_gold_answers": [r.text for r in references],
        }
        specs.append(
            ItemSpec(
                kind,
                payload,
                output.topic_id,
                output_id=pk,
                reference_output_id=references[0].pk,
            )
        )
    return specs
