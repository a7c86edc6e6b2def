"""manage.py judge --collection NAME [--run R --k K] [--topic T] [--reports]
[--distribution | --embedding] [--rubric crux|umbrela] [--temperature T --seed S]
[--sample-size N [--sample-seed S]] [--dry-run]

The CLI twin of the judging job: the same scope rules (every run's top-k and the qrels, one
run's top-k, or the generated reports; optionally one topic), only the items the judge has not
rated, a progress bar, and a summary of what was stored with any unparsable outputs. The LLM
judge is the workers' JUDGE_MODEL unless ``--model`` names another; ``--distribution`` reads
its rating distribution at the answer position instead of generating (a judge of its own);
``--embedding`` uses the embedding baseline judge instead (no LLM). ``--rubric umbrela`` grades
(query, passage) pairs 0-3 into the judge's qrels; ``--temperature`` > 0 with ``--seed`` runs a
sampled repeat of the judge (a judge of its own), and ``--sample-size`` rates a seeded random
sample of the scope's items (the same sample for every repeat).

Before judging it prints what the job will cost (``crux_app.jobs.estimate``: items left, prompt
tokens from the judge's tokenizer, expected time, money); ``--dry-run`` prints only that and
stores nothing.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from crux_app.command_output import write_estimate
from crux_app.dataio.qrels_judge import qrels_source
from crux_app.inputs import EvaluationInputError, resolve_collection
from crux_app.jobs.estimate import job_estimate
from crux_app.models import Job, Judgment, PassageQrel, Run, Topic
from crux_app.parameters import ParameterError
from crux_app.read_parameters import RUN as RUN_NAME  # the declared read side
from crux_app.read_parameters import TOPIC
from evaluation.crux.job import (
    DISTRIBUTION,
    EMBEDDING,
    KIND,
    LLM,
    JudgeJobParams,
    job_judge,
    run_judge_job,
)
from evaluation.crux.judge_scope import COLLECTION, OUTPUTS, RUN, plan_items
from evaluation.crux.method.judge_prompts import UMBRELA

UNPARSABLE_SHOWN = 10


class Command(BaseCommand):
    help = "Rate the items of a scope that the judge has not rated yet, in this process."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--collection", required=True)
        parser.add_argument(
            "--run",
            type=RUN_NAME.option_value_of(str),
            help="only this run's top-k (default: every run and qrels)",
        )
        parser.add_argument(
            "--topic", type=TOPIC.option_value_of(str), help="only this topic (external id)"
        )
        parser.add_argument("--reports", action="store_true", help="judge generated reports")
        parser.add_argument(
            "--distribution", action="store_true", help="rating distributions, no generation"
        )
        parser.add_argument("--embedding", action="store_true", help="the embedding baseline")
        # --k, --model, --prompt-version, --batch-size, --rubric, --temperature, --seed,
        # --sample-size, --sample-seed: the job's declared parameters.
        JudgeJobParams.add_arguments(parser)
        parser.add_argument(
            "--dry-run", action="store_true", help="print what the job would cost; judge nothing"
        )

    def handle(self, *args, **options) -> None:
        if options["reports"] and options["run"]:
            raise CommandError("--reports judges the collection's reports: leave out --run")
        if options["embedding"] and options["distribution"]:
            raise CommandError("--distribution is a mode of the LLM judge: leave out --embedding")
        try:
            collection = resolve_collection(options["collection"])
        except EvaluationInputError as error:
            raise CommandError(str(error)) from None
        run = self._run(collection, options["run"])
        topic = self._topic(collection, options["topic"])
        scope = OUTPUTS if options["reports"] else RUN if run else COLLECTION
        try:
            params = JudgeJobParams.from_params(
                {
                    **JudgeJobParams.from_options(options),
                    "scope": scope,
                    "run_id": run.pk if run else None,
                    "method": _method(options),
                }
            )
        except ParameterError as error:  # a rule of the declaration, at its option
            option = JudgeJobParams.declared()[error.name].option if error.name else None
            raise CommandError(f"{option}: {error}" if option else str(error)) from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        kind = params.started_kind(KIND)
        try:
            estimate = job_estimate(kind, params.as_params(run), collection, topic)
        except ValueError as error:
            raise CommandError(str(error)) from None
        write_estimate(self, "judging job", estimate, options["dry_run"])
        if options["dry_run"]:
            return
        model_for = _model_for(options["embedding"])
        try:
            total = self._missing(collection, params, topic, model_for)
        except ValueError as error:  # a judge identity the job would refuse (too long a name)
            raise CommandError(str(error)) from None
        job = Job.objects.create(
            kind=kind, params=params.as_params(run), collection=collection, topic=topic
        )
        bar = tqdm(total=total, desc="judging", unit="item", file=self.stderr, disable=None)
        job = run_judge_job(job, model_for, progress=bar.update)
        bar.close()
        self._summary(job)

    def _run(self, collection, name: str | None) -> Run | None:
        if name is None:
            return None
        run = Run.objects.filter(collection=collection, name=name).first()
        if run is None:
            names = ", ".join(collection.runs.order_by("name").values_list("name", flat=True))
            raise CommandError(f"--run: no run {name!r} in {collection.name!r}; runs: {names}")
        return run

    def _topic(self, collection, external_id: str | None) -> Topic | None:
        if external_id is None:
            return None
        topic = Topic.objects.filter(collection=collection, external_id=external_id).first()
        if topic is None:
            raise CommandError(f"--topic: no topic {external_id!r} in {collection.name!r}")
        return topic

    def _missing(self, collection, params: JudgeJobParams, topic, model_for) -> int:
        """How many items the job will rate (for the progress bar; no model is loaded)."""
        model_id = model_for(params.model).model_id
        # The job creates this identity too; made here so the plan can count what it judged.
        judge = job_judge(model_id, params.prompt_version, params.rubric == UMBRELA)
        spec = params.scope_spec(collection, topic.pk if topic else None)
        return len(plan_items(spec, judge).missing)

    def _summary(self, job: Job) -> None:
        judge_name = job.params.get("judge", "?")
        if job.state != Job.State.SUCCEEDED:
            errors = "; ".join(e.get("message", "") for e in job.errors[-3:])
            raise CommandError(f"judging job #{job.pk} {job.state}: {job.message} {errors}".strip())
        self.stdout.write(f"judge {judge_name}: {job.message}")
        if job.params.get("rubric") == UMBRELA:
            stored = PassageQrel.objects.filter(
                source=qrels_source(judge_name), topic__collection=job.collection
            ).count()
            self.stdout.write(
                f"  qrels source {qrels_source(judge_name)}: {stored} qrels in the collection "
                "(unparsable answers store none)"
            )
            return
        unparsable = Judgment.objects.filter(
            judge__name=judge_name, topic__collection=job.collection, rating__isnull=True
        ).select_related("subquestion")
        for judgment in unparsable.order_by("pk")[:UNPARSABLE_SHOWN]:
            raw = judgment.raw_output.replace("\n", " ")[:120]
            self.stdout.write(
                f"  unparsable: sub-question {judgment.subquestion.position}: {raw!r}"
            )


def _method(options) -> str:
    if options["embedding"]:
        return EMBEDDING
    return DISTRIBUTION if options["distribution"] else LLM


def _model_for(embedding: bool):
    # Model code is imported only when the command runs.
    from evaluation.crux.tasks import embedder_model_for, judge_model_for

    return embedder_model_for if embedding else judge_model_for
