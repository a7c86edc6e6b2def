"""The ``scaar`` job: SCAAR diagnostics of a collection's generated answers, stored per output.

Every row is keyed by (output, generator, embedder, settings)
(``evaluation.scaar.models.analysis_key``), so a retried job or a redelivered task stores
nothing twice and a re-run with everything stored loads and calls no model.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import job_collection
from crux_app.models import GeneratedOutput, Job
from evaluation.scaar.engine import AnalysisOptions, BatchAnalyser, ScaarModels
from evaluation.scaar.models import ScaarAnalysis, analysis_key
from evaluation.scaar.params import ScaarJobParams
from evaluation.scaar.passage_index import collection_index

KIND = "scaar"


def job_outputs(job: Job, config: ScaarJobParams):
    """The job's outputs with text: its topic's or its collection's, of its system if named."""
    outputs = GeneratedOutput.objects.filter(collection=job.collection).exclude(text="")
    if job.topic_id is not None:
        outputs = outputs.filter(topic_id=job.topic_id)
    if config.system is not None:
        outputs = outputs.filter(system=config.system)
    return outputs.order_by("external_id")


def run_scaar_job(job: Job, models: ScaarModels) -> Job:
    """Run a SCAAR job: batches of outputs, each analysing only the outputs not stored yet."""
    with fail_job_on_error(job):
        config = ScaarJobParams.from_params(job.params)
        job_collection(job)
        output_ids = list(job_outputs(job, config).values_list("pk", flat=True))
        size = config.batch_size
        batches = [output_ids[i : i + size] for i in range(0, len(output_ids), size)]
        run_batches(job, batches, OutputAnalyser(job, config, models).analyse_batch)
    job.refresh_from_db()
    return job


class OutputAnalyser:
    """Analyses one batch of outputs: skip stored rows, analyse and store the rest."""

    def __init__(self, job: Job, config: ScaarJobParams, models: ScaarModels) -> None:
        self.collection = job.collection
        self.config = config
        self.models = models
        self.options = AnalysisOptions(config.settings(), config.k, config.refine)
        self._analyser: BatchAnalyser | None = None

    @property
    def analyser(self) -> BatchAnalyser:
        # Built on first need: a re-run with every row stored builds no index, loads no model.
        if self._analyser is None:
            index = collection_index(self.collection)
            self._analyser = BatchAnalyser(self.models, self.options, index)
        return self._analyser

    def key(self, output_id: int) -> str:
        return analysis_key(
            output_id, self.models.generator_id, self.models.embedder_id, self.config.identity()
        )

    def analyse_batch(self, output_ids: Sequence[int]) -> dict[str, int]:
        keys = {pk: self.key(pk) for pk in output_ids}
        stored = set(
            ScaarAnalysis.objects.filter(key__in=keys.values()).values_list("key", flat=True)
        )
        missing = [pk for pk in output_ids if keys[pk] not in stored]
        if missing:
            outputs = list(
                GeneratedOutput.objects.filter(pk__in=missing)
                .select_related("topic", "collection")
                .order_by("external_id")
            )
            rows = self.analyser.analyse(outputs)
            for row in rows:
                row.key = keys[row.output_id]
                row.params = self.config.identity()
            # ON CONFLICT DO NOTHING: a row another worker stored first wins, never duplicated.
            with transaction.atomic():
                ScaarAnalysis.objects.bulk_create(rows, ignore_conflicts=True)
        return {"analysed": len(missing), "already stored": len(output_ids) - len(missing)}
