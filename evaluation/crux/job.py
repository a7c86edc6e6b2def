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

With the UMBRELA rubric the job grades (topic, passage) pairs 0-3 against the topic's query and
stores the grades as the judge's passage qrels (``QrelsRater``), so the leaderboard, ``evaluate``
and the judge report compute nDCG, MAP and the rest under that judge's qrels. A job with a
temperature > 0 is a sampled repeat of the judge (its own identity, see ``params``); a
sample size rates a seeded random sample of the scope's items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from crux_app.data_version import bump_topics
from crux_app.dataio.qrels_judge import MAX_SOURCE_LENGTH, qrels_source
from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import job_run
from crux_app.models import (
    GeneratedOutput,
    Job,
    Judge,
    Judgment,
    Passage,
    PassageQrel,
    SubQuestion,
    Topic,
)
from evaluation.backends.lazy_model import LazyModel
from evaluation.crux.embedding_engine import rate_by_embedding
from evaluation.crux.engine import (
    JudgeItem,
    RatedItem,
    judge_params,
    rate_items,
    rate_items_distribution,
)
from evaluation.crux.judge_scope import ItemKey, PairKey, judged_keys, judged_pairs, plan_items
from evaluation.crux.method.judge_prompts import UMBRELA
from evaluation.crux.params import (  # noqa: F401 (the job's parameters, imported from here)
    DEFAULT_BATCH_SIZE,
    DEFAULT_K,
    DISTRIBUTION,
    EMBEDDING,
    EMBEDDING_KIND,
    KIND,
    LLM,
    METHODS,
    JudgeJobParams,
)


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
        judge = job_judge(model.model_id, config.prompt_version, config.rubric == UMBRELA)
        # Shown with the job's parameters: which judge identity the job's ratings belong to.
        job.params = {**job.params, "judge": judge.name}
        Job.objects.filter(pk=job.pk).update(params=job.params)
        spec = config.scope_spec(job.collection, job.topic_id)
        plan = plan_items(spec, judge)
        if config.method == DISTRIBUTION and plan.missing:
            model.require_logprobs("the distribution judge (probabilities of ratings 0-5)")
        size = config.batch_size
        batches = [plan.missing[i : i + size] for i in range(0, len(plan.missing), size)]
        if config.method == EMBEDDING:
            rate = rate_by_embedding
        else:
            prompt = config.prompt()
            decoding = judge_params(config.temperature, config.seed)

            def rate(items, generator):
                if config.method == DISTRIBUTION:
                    return rate_items_distribution(items, generator, prompt)
                return rate_items(items, generator, prompt, decoding)

        if spec.pairs:
            rater: ItemRater | QrelsRater = QrelsRater(judge, rate, model)
        else:
            rater = ItemRater(judge, rate, spec.judges_outputs, model)

        def process(batch: Sequence[ItemKey]) -> dict[str, int]:
            counts = rater.judge_batch(batch)
            if progress is not None:
                progress(len(batch))
            return counts

        run_batches(job, batches, process, note=plan.summary())
    job.refresh_from_db()
    return job


def job_judge(model_id: str, prompt_version: str, grades_qrels: bool) -> Judge:
    """The LLM judge identity (model id, prompt version), created on first use. A judge that
    grades qrels stores them under its name, which must fit a qrels source; a new one must not
    take the name of qrels that are not a judge's (a release's own)."""
    name = Judge.llm_name(model_id, prompt_version)
    if grades_qrels and len(qrels_source(name)) > MAX_SOURCE_LENGTH:
        raise ValueError(
            f"judge name {name!r} is {len(name)} characters long; its qrels source may have at "
            f"most {MAX_SOURCE_LENGTH}: name the model by a shorter id"
        )
    judge = Judge.objects.filter(
        kind=Judge.Kind.LLM, model_id=model_id, prompt_version=prompt_version
    ).first()
    if judge is not None:
        return judge
    if grades_qrels and PassageQrel.objects.filter(source=qrels_source(name)).exists():
        raise ValueError(f"qrels source {name!r} holds qrels that are not this judge's")
    judge, _ = Judge.objects.get_or_create(
        kind=Judge.Kind.LLM,
        model_id=model_id,
        prompt_version=prompt_version,
        defaults={"name": name},
    )
    return judge


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
            bump_topics({row.topic_id for row in rows})  # bulk_create sends no signal


class QrelsRater:
    """Grades one batch of (topic, passage) pairs with the UMBRELA rubric and stores each parsed
    grade as the judge's passage qrel (source: the judge's name), as ``import_qrels --judge``
    stores a qrels file. An unparsable output stores nothing (qrels have no "unparsable"
    grade): it is counted in the job's message, and a later job asks again."""

    def __init__(
        self,
        judge: Judge,
        rate: Callable[[Sequence[JudgeItem], Any], list[RatedItem]],
        model: JudgeModel,
    ):
        self.judge = judge
        self.rate = rate
        self.source = qrels_source(judge.name)
        self._model = LazyModel("judge", model.model_id, model.load)

    def judge_batch(self, keys: Sequence[PairKey]) -> dict[str, int]:
        stored = judged_pairs(self.judge, list(keys))
        todo = [k for k in keys if k not in stored]
        rated = self.rate(self._items(todo), self._model.get()) if todo else []
        parsed = [r for r in rated if r.is_parsed]
        rows = [
            PassageQrel(
                topic_id=r.item.key.topic_id,
                passage_id=r.item.key.passage_id,
                grade=r.rating,
                source=self.source,
            )
            for r in parsed
        ]
        # ON CONFLICT DO NOTHING: a qrel another worker stored first wins.
        with transaction.atomic():
            PassageQrel.objects.bulk_create(rows, ignore_conflicts=True)
            bump_topics({row.topic_id for row in rows})
        counts = {"judged": len(rated), "unparsable": len(rated) - len(parsed)}
        if stored:
            counts["judged by another worker"] = len(stored)
        return counts

    def _items(self, keys: Sequence[PairKey]) -> list[JudgeItem]:
        queries = dict(
            Topic.objects.filter(pk__in={k.topic_id for k in keys}).values_list("pk", "request")
        )
        texts = dict(
            Passage.objects.filter(pk__in={k.passage_id for k in keys}).values_list("pk", "text")
        )
        return [JudgeItem(k, queries[k.topic_id], texts[k.passage_id]) for k in keys]
