"""The ``dense`` job: DENSE (and DENSE-RAG's diagnosis) of each question under a run's top-k.

Batches of topics; each batch evaluates only the topics whose row is not stored yet, with
every model step batched across the batch's questions. A row is keyed by (topic, run, k,
generator, NLI model, settings) (``evaluation.dense.models.dense_key``), so a retried job or a
redelivered task stores nothing twice, and a re-run with every row stored loads no model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from django.db import transaction

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import required_job_run
from crux_app.models import Job, Run, Topic
from evaluation.backends.base import Embedder, Generator, NLIModel
from evaluation.backends.lazy_model import LazyModel
from evaluation.dense.engine import DenseEngine
from evaluation.dense.models import DenseResult, dense_key
from evaluation.dense.params import DenseJobParams
from evaluation.dense.pipeline import PipelineQuestion, PipelineResult, run_pipeline
from evaluation.shared.lexical_match import lexical_match

KIND = "dense"


@dataclass(frozen=True)
class DenseModels:
    """The models' recorded ids, and how to load them (only called when a row is missing)."""

    generator_id: str
    nli_id: str
    embedder_id: str
    load_generator: Callable[[], Generator]
    load_nli: Callable[[], NLIModel]
    load_embedder: Callable[[], Embedder]


def run_dense_job(job: Job, models: DenseModels) -> Job:
    """Run a DENSE job over the collection's topics (or the job's one topic)."""
    with fail_job_on_error(job):
        config = DenseJobParams.from_params(job.params)
        run = required_job_run(job, config.run_id)
        topics = Topic.objects.filter(collection=job.collection)
        if job.topic_id is not None:
            topics = topics.filter(pk=job.topic_id)
        topic_ids = list(topics.order_by("external_id").values_list("pk", flat=True))
        size = config.batch_size
        batches = [topic_ids[i : i + size] for i in range(0, len(topic_ids), size)]
        run_batches(job, batches, DenseTopicBatch(run, config, models).process)
    job.refresh_from_db()
    return job


@dataclass(frozen=True)
class PlannedTopic:
    topic: Topic
    key: str
    passage_ids: tuple[int, ...]  # the ranked pool, top-k first
    texts: tuple[str, ...]


def plan_topic(topic: Topic, run: Run, config: DenseJobParams, key: str) -> PlannedTopic:
    """The run's ranked passages with text for the topic, up to the refinement pool size."""
    entries = (
        run.entries.filter(topic=topic)
        .order_by("rank", "line_order")
        .select_related("passage")[: config.pool]
    )
    # Passages without text cannot be shown to the model; they are left out, not replaced.
    passages = [e.passage for e in entries if e.passage.has_text and e.passage.text.strip()]
    return PlannedTopic(topic, key, tuple(p.pk for p in passages), tuple(p.text for p in passages))


class DenseTopicBatch:
    """Evaluates one batch of topics: skip stored rows, run DENSE-RAG on the rest, store."""

    def __init__(self, run: Run, config: DenseJobParams, models: DenseModels) -> None:
        self.run = run
        self.config = config
        self.models = models
        self.params = config.result_params(models.embedder_id)
        self._engine: DenseEngine | None = None
        self._embedder: Embedder | None = None

    def _loaded(self) -> tuple[DenseEngine, Embedder | None]:
        # Loaded on first need: a re-run with every row stored never touches a model.
        if self._engine is None:
            m = self.models
            generator = LazyModel("generator", m.generator_id, m.load_generator).get()
            nli = LazyModel("NLI model", m.nli_id, m.load_nli).get()
            # One engine (and cache) for the whole job: later batches reuse cached calls.
            self._engine = DenseEngine(generator, nli, self.config.engine_settings())
            if self.config.refine or self.config.chunking:
                self._embedder = self.models.load_embedder()
        return self._engine, self._embedder

    def key(self, topic: Topic) -> str:
        m = self.models
        return dense_key(
            topic.pk, self.run.pk, self.config.k, m.generator_id, m.nli_id, self.params
        )

    def process(self, topic_ids: Sequence[int]) -> dict[str, int]:
        topics = list(Topic.objects.filter(pk__in=topic_ids).order_by("external_id"))
        keys = {t.pk: self.key(t) for t in topics}
        stored = set(
            DenseResult.objects.filter(key__in=keys.values()).values_list("key", flat=True)
        )
        plans = [plan_topic(t, self.run, self.config, keys[t.pk]) for t in topics]
        todo = [p for p in plans if p.key not in stored and p.texts]
        counts = {
            "evaluated": len(todo),
            "already stored": sum(p.key in stored for p in plans),
            "no context": sum(1 for p in plans if p.key not in stored and not p.texts),
        }
        if todo:
            self._evaluate_and_store(todo)
        return {name: n for name, n in counts.items() if n}

    def _evaluate_and_store(self, plans: Sequence[PlannedTopic]) -> None:
        engine, embedder = self._loaded()
        before = replace(engine.counts)
        questions = [
            PipelineQuestion(
                str(p.topic.pk), p.topic.request, min(self.config.k, len(p.texts)), p.texts
            )
            for p in plans
        ]
        results = run_pipeline(questions, engine, embedder, self.config.pipeline_settings())
        calls = {**engine.counts.minus(before).as_dict(), "questions_in_batch": len(plans)}
        rows = [self._row(p, r, calls) for p, r in zip(plans, results, strict=True)]
        # ON CONFLICT DO NOTHING: a row another worker stored first wins, never duplicated.
        with transaction.atomic():
            DenseResult.objects.bulk_create(rows, ignore_conflicts=True)

    def _row(self, plan: PlannedTopic, result: PipelineResult, calls: dict) -> DenseResult:
        e, golds = result.evaluation, [str(g) for g in plan.topic.gold_answers]
        refinement = result.refinement
        final_answer = refinement["final_answer"] if refinement else e.answer
        final_dse = refinement["final_dse"] if refinement else e.dse
        detail = {
            **e.to_dict(),
            "passage_ids": list(plan.passage_ids[: result.question.k]),
            "pool_passage_ids": list(plan.passage_ids),
            "refinement": refinement,
            "semantic_chunks": result.semantic_chunks,
            "calls": calls,
        }
        return DenseResult(
            key=plan.key,
            topic=plan.topic,
            run=self.run,
            k=self.config.k,
            generator=self.models.generator_id,
            nli=self.models.nli_id,
            params=self.params,
            dse=e.dse,
            uncertain=e.uncertain,
            answer=e.answer,
            correct=lexical_match(e.answer, golds) if golds else None,
            final_answer=final_answer,
            final_dse=final_dse,
            final_correct=lexical_match(final_answer, golds) if golds else None,
            detail=detail,
        )
