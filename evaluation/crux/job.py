"""The judging jobs: rate a scope's missing items with a judge, store them. ``judge_answerability``
asks an LLM with the CRUX rubric (queue ``gpu``); ``judge_embedding`` is the cheap baseline, the
embedder's cosine cut into 0-5 (queue ``cpu``, see ``method.embedding_rating``).

The judge's identity is (model id, prompt version; the embedding rubric's version for the
baseline); every judgment is keyed by judge and item
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
from evaluation.backends.lazy_model import LazyModel
from evaluation.crux.embedding_engine import rate_by_embedding
from evaluation.crux.engine import JudgeItem, RatedItem, rate_items, rate_items_distribution
from evaluation.crux.judge_scope import (
    RUN,
    SCOPES,
    ItemKey,
    ScopeSpec,
    judged_keys,
    plan_items,
)
from evaluation.crux.method.embedding_rating import PROMPT_VERSION as EMBEDDING_RUBRIC
from evaluation.crux.method.judge_prompts import DEFAULT_PROMPT_VERSION, get_prompt
from evaluation.crux.method.rating_distribution import VERSION_SUFFIX

KIND = "judge_answerability"
EMBEDDING_KIND = "judge_embedding"
# The LLM judge's greedy "first integer" rating (the paper's), its rating distribution at the
# answer position (a judge identity of its own: the prompt version gains VERSION_SUFFIX), and
# the embedding baseline.
LLM, DISTRIBUTION, EMBEDDING = "llm", "distribution", "embedding"
METHODS = (LLM, DISTRIBUTION, EMBEDDING)
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
    method: str = LLM  # one of METHODS

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
        method = params.get("method", LLM)
        if method not in METHODS:
            raise ValueError(f"job parameter 'method' must be one of {', '.join(METHODS)}")
        if method == EMBEDDING:
            version = EMBEDDING_RUBRIC
        else:
            version = params.get("prompt_version", cls.prompt_version).removesuffix(VERSION_SUFFIX)
            get_prompt(version)  # an unknown version fails here, naming the known ones
        if method == DISTRIBUTION:
            version += VERSION_SUFFIX
        return cls(
            scope=scope, run_id=run_id, model=model, prompt_version=version, method=method, **values
        )

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
            "method": self.method,
        }


@dataclass(frozen=True)
class JudgeModel:
    """A judge model's recorded id, and how to load it (only called when an item is missing):
    a generator for the LLM judge, an embedder for the embedding baseline."""

    model_id: str
    load: Callable[[], Any]
    # Raises when the model cannot give token log-probs (a server that returns none).
    require_logprobs: Callable[[str], None] = lambda needed_for: None


def run_judge_job(
    job: Job,
    judge_model_for: Callable[[str | None], JudgeModel],
    progress: Callable[[int], None] | None = None,
) -> Job:
    """Run a judging job; ``judge_model_for(params.model)`` names the model and loads it;
    ``progress(n)`` is told of each batch of n items done (the command's progress bar)."""
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
        if config.method == DISTRIBUTION and plan.missing:
            model.require_logprobs("the distribution judge (probabilities of ratings 0-5)")
        size = config.batch_size
        batches = [plan.missing[i : i + size] for i in range(0, len(plan.missing), size)]
        if config.method == EMBEDDING:
            rate = rate_by_embedding
        else:
            prompt = get_prompt(config.prompt_version.removesuffix(VERSION_SUFFIX))
            rate_with = rate_items_distribution if config.method == DISTRIBUTION else rate_items

            def rate(items, generator):
                return rate_with(items, generator, prompt)

        rater = ItemRater(judge, rate, spec.judges_outputs, model)

        def process(batch: Sequence[ItemKey]) -> dict[str, int]:
            counts = rater.judge_batch(batch)
            if progress is not None:
                progress(len(batch))
            return counts

        run_batches(job, batches, process, note=plan.summary())
    job.refresh_from_db()
    return job


class ItemRater:
    """Rates one batch of a job's items: skip those stored meanwhile, rate and store the rest."""

    def __init__(
        self,
        judge: Judge,
        rate: Callable[[Sequence[JudgeItem], Any], list[RatedItem]],
        outputs: bool,
        model: JudgeModel,
    ):
        self.judge = judge
        self.rate = rate
        self.outputs = outputs
        self.task = Judgment.Task.REPORT_COVERAGE if outputs else Judgment.Task.PASSAGE_RATING
        # Loaded on first need: a job with nothing missing never touches a model.
        self._model = LazyModel("judge", model.model_id, model.load)

    def judge_batch(self, keys: Sequence[ItemKey]) -> dict[str, int]:
        # Another worker may have run this batch meanwhile (a task redelivered while the first
        # worker still ran): what it stored is not rated again.
        stored = judged_keys(self.judge, list(keys), self.outputs)
        todo = [k for k in keys if k not in stored]
        rated = self.rate(self._items(todo), self._model.get()) if todo else []
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
                distribution=list(r.distribution) if r.distribution is not None else None,
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
