"""The ``seper`` job: SePer / Delta-SePer of each QA topic (or long-form sub-question with
reference answers, ``evaluation.seper.units``) under its run's top-k and gold passages.

For every unit it scores the no-context baseline, each passage of the run's top-k alone, the
whole top-k, and the gold passages (``qa_gold`` qrels) when there are any; it also stores the
entailment kernel's answer-equivalence decision on each generated answer of a QA topic (what
crowd annotators judge in answer-equivalence campaigns). Every row is keyed by (topic,
sub-question, context, generator, NLI model, sampling settings)
(``evaluation.seper.models.seper_key``), so a retried job or a redelivered task stores nothing twice
and a re-run with everything stored loads and calls no model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass

from django.db import transaction

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import job_run
from crux_app.models import Job, Run, Topic
from evaluation.backends.base import Generator, NLIModel
from evaluation.backends.lazy_model import LazyModel
from evaluation.seper.decisions_store import store_output_decisions
from evaluation.seper.engine import (
    ContextResult,
    SeperBatch,
    SeperContext,
    SeperQuestion,
    score_batch,
)
from evaluation.seper.models import SeperScore, seper_key
from evaluation.seper.params import DEFAULT_K as DEFAULT_K  # re-exported for the pages
from evaluation.seper.params import SeperJobParams
from evaluation.seper.sampling import generation_to_dict, restore_cache
from evaluation.seper.units import (
    BASELINE_KEY,
    PlannedContext,
    ScoringUnit,
    plan_contexts,
    scorable_topic_ids,
    units_for_topics,
)

KIND = "seper"


@dataclass(frozen=True)
class SeperModels:
    """The models' recorded ids, and how to load them (only called when a row is missing)."""

    generator_id: str
    nli_id: str
    load_generator: Callable[[], Generator]
    load_nli: Callable[[], NLIModel]


def run_seper_job(job: Job, models: SeperModels) -> Job:
    """Run a SePer job: batches of topics, each scoring only the contexts not stored yet."""
    with fail_job_on_error(job):
        config = SeperJobParams.from_params(job.params)
        config.sampling()  # bad sampling settings fail here, before any batch
        run = job_run(job, config.run_id)
        topics = Topic.objects.filter(collection=job.collection)
        if job.topic_id is not None:
            topics = topics.filter(pk=job.topic_id)
        topic_ids = scorable_topic_ids(topics)
        size = config.batch_size
        batches = [topic_ids[i : i + size] for i in range(0, len(topic_ids), size)]
        scorer = TopicScorer(run, config, models)
        run_batches(job, batches, scorer.score_topics)
    job.refresh_from_db()
    return job


class TopicScorer:
    """Scores one batch of topics: skip stored contexts, sample and score the rest, store them."""

    def __init__(self, run: Run | None, config: SeperJobParams, models: SeperModels) -> None:
        self.run = run
        self.config = config
        self.sampling = config.sampling()
        self.params = asdict(self.sampling)
        self.models = models
        # Loaded on first need: a re-run with every row stored never touches a model.
        self._generator = LazyModel("generator", models.generator_id, models.load_generator)
        self._nli = LazyModel("NLI model", models.nli_id, models.load_nli)

    def _loaded(self) -> tuple[Generator, NLIModel]:
        return self._generator.get(), self._nli.get()

    def _loaded_nli(self) -> NLIModel:
        return self._nli.get()

    def key(self, unit: ScoringUnit, ctx: PlannedContext) -> str:
        return seper_key(
            unit.topic.pk,
            ctx.kind,
            ctx.passage_id,
            ctx.run_id,
            ctx.k,
            self.models.generator_id,
            self.models.nli_id,
            self.params,
            subquestion_id=unit.ident[1],
        )

    def score_topics(self, topic_ids: Sequence[int]) -> dict[str, int]:
        topics = list(Topic.objects.filter(pk__in=topic_ids).order_by("external_id"))
        units = units_for_topics(topics)
        plans = {u.ident: plan_contexts(u, self.run, self.config.k) for u in units}
        keys = {(u.ident, c.label): self.key(u, c) for u in units for c in plans[u.ident]}
        # Another worker may have scored some meanwhile (a redelivered task): not again.
        stored = set(SeperScore.objects.filter(key__in=keys.values()).values_list("key", flat=True))
        missing = {ident_label for ident_label, key in keys.items() if key not in stored}
        todo = [u for u in units if any((u.ident, c.label) in missing for c in plans[u.ident])]
        if todo:
            self._score_and_store(todo, plans, keys, missing)
        decided = store_output_decisions(
            [t for t in topics if t.gold_answers], self.models.nli_id, self._loaded_nli
        )
        return {
            "scored": len(missing),
            "already stored": len(keys) - len(missing),
            "answer decisions": decided,
        }

    def _score_and_store(
        self,
        units: Sequence[ScoringUnit],
        plans: Mapping[tuple[int, int | None], list[PlannedContext]],
        keys: Mapping[tuple[tuple[int, int | None], str], str],
        missing: set[tuple[tuple[int, int | None], str]],
    ) -> None:
        generator, nli = self._loaded()
        # Stored baselines are reused, so a new context's Delta is against the same samples.
        baselines = SeperScore.objects.filter(
            key__in=[keys[(u.ident, BASELINE_KEY)] for u in units]
        ).values_list("detail", flat=True)
        cache = restore_cache(d["sample"] for d in baselines if "sample" in d)
        questions = [
            SeperQuestion(
                question=u.question,
                golds=u.golds,
                contexts=tuple(
                    SeperContext(c.label, c.text)
                    for c in plans[u.ident]
                    if c.label != BASELINE_KEY and (u.ident, c.label) in missing
                ),
            )
            for u in units
        ]
        batch = score_batch(questions, generator, nli, self.sampling, cache)
        rows = []
        for unit, result in zip(units, batch.results, strict=True):
            by_label = {c.key: c for c in result.contexts}
            by_label[BASELINE_KEY] = result.baseline
            for ctx in plans[unit.ident]:
                if (unit.ident, ctx.label) in missing:
                    key = keys[(unit.ident, ctx.label)]
                    rows.append(self._row(unit, ctx, key, by_label[ctx.label], batch))
        # ON CONFLICT DO NOTHING: a row another worker stored first wins, never duplicated.
        with transaction.atomic():
            SeperScore.objects.bulk_create(rows, ignore_conflicts=True)

    def _row(
        self,
        unit: ScoringUnit,
        ctx: PlannedContext,
        key: str,
        scored: ContextResult,
        batch: SeperBatch,
    ) -> SeperScore:
        is_baseline = ctx.label == BASELINE_KEY
        generations = batch.samples[scored.sample_key]
        # The sample set is kept whole, so a later job can restore it into its response cache.
        sample = {
            "key": scored.sample_key.to_dict(),
            "generations": [generation_to_dict(g) for g in generations],
        }
        return SeperScore(
            key=key,
            topic=unit.topic,
            subquestion=unit.subquestion,
            context_kind=ctx.kind,
            passage_id=ctx.passage_id,
            run_id=ctx.run_id,
            k=ctx.k,
            generator=self.models.generator_id,
            nli=self.models.nli_id,
            params=self.params,
            seper_s=scored.score.soft,
            seper_h=scored.score.hard,
            delta_s=None if is_baseline else scored.delta.soft,
            delta_h=None if is_baseline else scored.delta.hard,
            detail={**scored.to_dict(), "golds": list(unit.golds), "sample": sample},
        )
