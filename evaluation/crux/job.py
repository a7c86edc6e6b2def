"""The ``judge_answerability`` job: rate a scope's missing items with an LLM judge, store them.

The judge's identity is (model id, prompt version); every judgment is keyed by judge and item
(the unique constraints on Judgment), so a retried job, a redelivered task or a second worker
never duplicates one, and a re-run of a finished job asks no model anything. Passage items are
stored with task ``passage_rating``; report items with task ``report_coverage`` holding the
judge's 0-5 rating, which consumers cut at tau (human report labels there are 0/1 and are read
as they are, see ``evaluation.crux.evaluate`` and ``evaluation.agreement.label_tables``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import job_run
from crux_app.models import GeneratedOutput, Job, Judge, Judgment, Passage, Run, SubQuestion
from evaluation.backends.base import Generator
from evaluation.backends.lazy_model import LazyModel
from evaluation.crux.engine import JudgeItem, RatedItem, rate_items
from evaluation.crux.judge_scope import (
    RUN,
    SCOPES,
    ItemKey,
    JudgePlan,
    ScopeSpec,
    judged_keys,
    plan_items,
)
from evaluation.crux.method.judge_prompts import DEFAULT_PROMPT_VERSION, RubricPrompt, get_prompt

KIND = "judge_answerability"
DEFAULT_K = 10
DEFAULT_BATCH_SIZE = 16


@dataclass(frozen=True)
class JudgeJobParams:
    scope: str = "collection"
    run_id: int | None = None  # the run of the ``run`` scope
    k: int = DEFAULT_K
    model: str | None = None  # None: the workers' configured judge (JUDGE_MODEL)
    prompt_version: str = DEFAULT_PROMPT_VERSION
    batch_size: int = DEFAULT_BATCH_SIZE

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> JudgeJobParams:
        """Parse a Job's params, naming the field that is wrong."""
        values: dict[str, Any] = {}
        for name, minimum in [("k", 1), ("batch_size", 1)]:
            raw = params.get(name, getattr(cls, name))
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < minimum:
                raise ValueError(
                    f"job parameter {name!r} must be an integer >= {minimum}, got {raw!r}"
                )
            values[name] = raw
        scope = params.get("scope", cls.scope)
        if scope not in SCOPES:
            known = ", ".join(SCOPES)
            raise ValueError(f"job parameter 'scope' must be one of {known}, got {scope!r}")
        run_id = params.get("run_id")
        if run_id is not None and (isinstance(run_id, bool) or not isinstance(run_id, int)):
            raise ValueError(f"job parameter 'run_id' must be a run id or null, got {run_id!r}")
        if scope == RUN and run_id is None:
            raise ValueError("job parameter 'run_id' is required for scope 'run'")
        model = params.get("model")
        if model is not None and not isinstance(model, str):
            raise ValueError(f"job parameter 'model' must be a model id or null, got {model!r}")
        version = params.get("prompt_version", cls.prompt_version)
        get_prompt(version)  # an unknown version fails here, naming the known ones
        return cls(scope=scope, run_id=run_id, model=model, prompt_version=version, **values)

    def as_params(self, run: Run | None = None) -> dict[str, Any]:
        """The JSON params of a job; the run's name is kept for display only."""
        return {
            "scope": self.scope,
            "run_id": self.run_id,
            "run": run.name if run else None,
            "k": self.k,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "batch_size": self.batch_size,
        }


@dataclass(frozen=True)
class JudgeModel:
    """A judge model's recorded id, and how to load it (only called when an item is missing)."""

    model_id: str
    load: Callable[[], Generator]


def run_judge_job(job: Job, judge_model_for: Callable[[str | None], JudgeModel]) -> Job:
    """Run a judging job; ``judge_model_for(params.model)`` names the model and loads it."""
    with fail_job_on_error(job):
        config = JudgeJobParams.from_params(job.params)
        job_run(job, config.run_id)
        model = judge_model_for(config.model)
        judge, _ = Judge.objects.get_or_create(
            kind=Judge.Kind.LLM,
            model_id=model.model_id,
            prompt_version=config.prompt_version,
            defaults={"name": Judge.llm_name(model.model_id, config.prompt_version)},
        )
        # Shown with the job's parameters: which judge identity the job's ratings belong to.
        job.params = {**job.params, "judge": judge.name}
        Job.objects.filter(pk=job.pk).update(params=job.params)
        spec = ScopeSpec(
            collection=job.collection,
            scope=config.scope,
            k=config.k,
            run_id=config.run_id if config.scope == RUN else None,
            topic_id=job.topic_id,
        )
        plan = plan_items(spec, judge)
        size = config.batch_size
        batches = [plan.missing[i : i + size] for i in range(0, len(plan.missing), size)]
        rater = ItemRater(judge, get_prompt(config.prompt_version), spec.judges_outputs, model)
        run_batches(job, batches, rater.judge_batch)
        _add_plan_counts(job, plan)
    job.refresh_from_db()
    return job


def _add_plan_counts(job: Job, plan: JudgePlan) -> None:
    """Append what the plan left out to the runner's summary of what the batches did."""
    message = ", ".join(filter(None, [job.message, plan.summary()]))
    Job.objects.filter(pk=job.pk).update(message=message)


class ItemRater:
    """Rates one batch of a job's items: skip those stored meanwhile, rate and store the rest."""

    def __init__(self, judge: Judge, prompt: RubricPrompt, outputs: bool, model: JudgeModel):
        self.judge = judge
        self.prompt = prompt
        self.outputs = outputs
        self.task = Judgment.Task.REPORT_COVERAGE if outputs else Judgment.Task.PASSAGE_RATING
        # Loaded on first need: a job with nothing missing never touches a model.
        self._generator = LazyModel("judge", model.model_id, model.load)

    @property
    def generator(self) -> Generator:
        return self._generator.get()

    def judge_batch(self, keys: Sequence[ItemKey]) -> dict[str, int]:
        # Another worker may have run this batch meanwhile (a task redelivered while the first
        # worker still ran): what it stored is not rated again.
        stored = judged_keys(self.judge, list(keys), self.outputs)
        todo = [k for k in keys if k not in stored]
        rated = rate_items(self._items(todo), self.generator, self.prompt) if todo else []
        self._store(rated)
        counts = {"judged": len(rated), "unparsable": sum(not r.is_parsed for r in rated)}
        if stored:
            counts["judged by another worker"] = len(stored)
        return counts

    def _items(self, keys: Sequence[ItemKey]) -> list[JudgeItem]:
        questions = dict(
            SubQuestion.objects.filter(pk__in={k.subquestion_id for k in keys}).values_list(
                "pk", "text"
            )
        )
        targets = GeneratedOutput.objects if self.outputs else Passage.objects
        texts = dict(targets.filter(pk__in={k.target_id for k in keys}).values_list("pk", "text"))
        return [JudgeItem(k, questions[k.subquestion_id], texts[k.target_id]) for k in keys]

    def _store(self, rated: Sequence[RatedItem]) -> None:
        target = "output_id" if self.outputs else "passage_id"
        rows = [
            Judgment(
                judge=self.judge,
                topic_id=r.item.key.topic_id,
                subquestion_id=r.item.key.subquestion_id,
                task=self.task,
                rating=r.rating,
                raw_output=r.raw_output,
                prompt=r.prompt,
                **{target: r.item.key.target_id},
            )
            for r in rated
        ]
        # ON CONFLICT DO NOTHING (no conflict target, so the partial unique indexes count):
        # a row another worker stored first wins, and this one is dropped, never duplicated.
        with transaction.atomic():
            Judgment.objects.bulk_create(rows, ignore_conflicts=True)
