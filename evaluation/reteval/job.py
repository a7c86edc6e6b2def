"""The ``reteval`` job: for each question with gold passages in a run, the semi-gold answers, the
RAG answer of the run's top-k for every k, the CompareGPT comparisons and one result row per
(question, run, k, judge).

Idempotent at every step: semi-gold and RAG answers are found by external id, comparisons by
(RAG answer, semi-gold answer, judge, prompt version), results by (question, run, k, judge,
prompt version); a re-run with everything stored loads no model and only refreshes the result
rows (retrieval scores and pre-labels are cheap).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import required_job_run
from crux_app.models import Job, Run, RunEntry, Topic
from crux_app.vocabulary import QA_GOLD_SOURCE
from evaluation.answers.generation import answer_external_id
from evaluation.answers.job import AnswerJobParams, TopicAnswerer
from evaluation.backends.base import Generator
from evaluation.backends.lazy_model import LazyModel
from evaluation.reteval.comparisons import Comparer, Pair, comparable
from evaluation.reteval.method.prompts import build_reteval_answer_prompt
from evaluation.reteval.params import RetEvalJobParams
from evaluation.reteval.result_rows import store_results
from evaluation.reteval.semi_gold import SemiGoldAnswerer, gold_passages

KIND = "reteval"


def rag_system_name(run_name: str, k: int) -> str:
    """The RAG answers' system: their own prompt (Figure 2), so not the ``rag:`` answers'."""
    return f"reteval:{run_name}@{k}"


@dataclass(frozen=True)
class RetEvalModels:
    """The models' recorded ids, and how to load them (only called when work is missing)."""

    generator_id: str
    judge_id: str
    load_generator: Callable[[], Generator]
    load_judge: Callable[[], Generator]


def planned_topics(run: Run, topic_id: int | None, limit: int | None) -> list[int]:
    """Questions with gold passages that the run ranks passages for, by external id."""
    topics = Topic.objects.filter(
        collection_id=run.collection_id,
        qrels__source=QA_GOLD_SOURCE,
        qrels__grade__gt=0,
        pk__in=RunEntry.objects.filter(run=run).values("topic_id"),
    ).distinct()
    if topic_id is not None:
        topics = topics.filter(pk=topic_id)
    ids = list(topics.order_by("external_id").values_list("pk", flat=True))
    return ids[:limit] if limit else ids


def run_reteval_job(job: Job, models: RetEvalModels) -> Job:
    """Run an LLM-retEval job in batches of questions."""
    with fail_job_on_error(job):
        config = RetEvalJobParams.from_params(job.params)
        run = required_job_run(job, config.run_id)
        topic_ids = planned_topics(run, job.topic_id, config.max_questions)
        if not topic_ids:
            raise ValueError(
                f"collection {job.collection.name!r} has no question with gold passages "
                f"({QA_GOLD_SOURCE} qrels) that run {run.name!r} ranks"
            )
        size = config.batch_size
        batches = [topic_ids[i : i + size] for i in range(0, len(topic_ids), size)]
        run_batches(job, batches, RetEvalBatch(job, run, config, models).process)
    job.refresh_from_db()
    return job


class RetEvalBatch:
    """One batch of questions: semi-gold answers, RAG answers per k, comparisons, results."""

    def __init__(self, job: Job, run: Run, config: RetEvalJobParams, models: RetEvalModels):
        self.job = job
        self.run = run
        self.config = config
        self.models = models
        # Loaded on first need: a re-run with every answer stored never touches a model.
        self._generator = LazyModel("generator", models.generator_id, models.load_generator)
        self.semi_gold = SemiGoldAnswerer(config.semi_gold(), self.generator, job.pk)
        self.comparer = Comparer(models.judge_id, models.load_judge)

    def generator(self) -> Generator:
        return self._generator.get()

    def answerer(self, k: int) -> TopicAnswerer:
        params = AnswerJobParams(
            run_id=self.run.pk,
            k=k,
            max_new_tokens=self.config.max_new_tokens,
            batch_size=self.config.batch_size,
        )
        return TopicAnswerer(
            self.job,
            self.run,
            params,
            self.generator,
            system=rag_system_name(self.run.name, k),
            build_prompt=build_reteval_answer_prompt,
        )

    def process(self, topic_ids: Sequence[int]) -> dict[str, int]:
        topics = list(Topic.objects.filter(pk__in=topic_ids).order_by("external_id"))
        gold = gold_passages([t.pk for t in topics])
        references, generated = self.semi_gold.ensure(topics, gold)
        counts = {"semi-gold generated": generated, "RAG answers generated": 0, "judged": 0}
        rag: dict[tuple[int, int], object] = {}
        for k in self.config.ks:
            answerer = self.answerer(k)
            counts["RAG answers generated"] += answerer.answer_batch([t.pk for t in topics])[
                "generated"
            ]
            keys = {answer_external_id(answerer.system, t.external_id): t for t in topics}
            outputs = self.run.collection.outputs.filter(external_id__in=list(keys))
            for output in outputs:
                rag[(keys[output.external_id].pk, k)] = output
        pairs = [
            Pair(t.request, rag[(t.pk, k)], reference)
            for t in topics
            for k in self.config.ks
            for reference in comparable(references[t.pk])
        ]
        counts["judged"] = self.comparer.compare(pairs)
        counts["results"] = store_results(
            self.job, self.run, topics, self.config.ks, rag, references, gold, self.models.judge_id
        )
        return counts
