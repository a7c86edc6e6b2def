"""The ``scaar`` job: SCAAR diagnostics of a collection's generated answers, stored per output.

Every row is keyed by (output, generator, embedder, settings)
(``evaluation.scaar.models.analysis_key``), so a retried job or a redelivered task stores
nothing twice and a re-run with everything stored loads and calls no model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.db import transaction

from crux_app.jobs.runner import fail_job_on_error, run_batches
from crux_app.jobs.scope import job_collection
from crux_app.models import GeneratedOutput, Job
from evaluation.scaar.engine import AnalysisOptions, BatchAnalyser, ScaarModels
from evaluation.scaar.method.contributions import WEIGHTINGS, ScaarSettings
from evaluation.scaar.models import ScaarAnalysis, analysis_key
from evaluation.scaar.passage_index import collection_index

KIND = "scaar"
DEFAULT_K = 3  # passages per query, as the paper retrieves
DEFAULT_BATCH_SIZE = 4


@dataclass(frozen=True)
class ScaarJobParams:
    theta0: float = 0.8
    alpha: float = 0.5
    weighting: str = "raw"
    k: int = DEFAULT_K
    refine: bool = True
    system: str | None = None  # only the outputs of this system; None: every output
    batch_size: int = DEFAULT_BATCH_SIZE

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ScaarJobParams:
        """Parse a Job's params, naming the field that is wrong."""
        values: dict[str, Any] = {}
        for name in ("theta0", "alpha"):
            raw = params.get(name, getattr(cls, name))
            if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw <= 1:
                raise ValueError(f"job parameter {name!r} must be a number in (0, 1], got {raw!r}")
            values[name] = float(raw)
        for name in ("k", "batch_size"):
            raw = params.get(name, getattr(cls, name))
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
                raise ValueError(f"job parameter {name!r} must be an integer >= 1, got {raw!r}")
            values[name] = raw
        weighting = params.get("weighting", cls.weighting)
        if weighting not in WEIGHTINGS:
            raise ValueError(
                f"job parameter 'weighting' must be one of {', '.join(WEIGHTINGS)}, "
                f"got {weighting!r}"
            )
        refine = params.get("refine", cls.refine)
        if not isinstance(refine, bool):
            raise ValueError(f"job parameter 'refine' must be true or false, got {refine!r}")
        system = params.get("system")
        if system is not None and (not isinstance(system, str) or not system):
            raise ValueError(
                f"job parameter 'system' must be a system name or null, got {system!r}"
            )
        return cls(weighting=weighting, refine=refine, system=system, **values)

    def as_params(self) -> dict[str, Any]:
        return asdict(self)

    def settings(self) -> ScaarSettings:
        return ScaarSettings(theta0=self.theta0, alpha=self.alpha, weighting=self.weighting)

    def identity(self) -> dict[str, Any]:
        """The settings a row depends on (not which outputs a job picked, nor batching)."""
        return {
            "theta0": self.theta0,
            "alpha": self.alpha,
            "weighting": self.weighting,
            "k": self.k,
            "refine": self.refine,
        }


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
