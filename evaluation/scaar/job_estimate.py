"""What a SCAAR job would cost (``JobKind.estimate_work``): the outputs whose analysis is not
stored for the configured models and these settings, and the tokens of an evenly spread sample
of them (the topic's query and the output, which the generator reads token by token), counted
with the generator's tokenizer. Refinement's regenerated answers come on top."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crux_app.jobs.cost import WorkLeft
from crux_app.models import Collection, GeneratedOutput, Job, Topic
from evaluation.backends.model.server import generator_server
from evaluation.backends.sample_tokens import generator_tokens
from evaluation.scaar.job import ScaarJobParams, job_outputs
from evaluation.scaar.models import ScaarAnalysis, analysis_key

SAMPLE_OUTPUTS = 16


def estimate_scaar(
    params: Mapping[str, Any], collection: Collection | None, topic: Topic | None
) -> WorkLeft:
    """The ``WorkLeft`` of a SCAAR job (raises ValueError for parameters it would refuse)."""
    if collection is None:
        raise ValueError("a SCAAR job needs a collection")
    from evaluation.scaar.tasks import scaar_models  # the workers' model ids, nothing loaded

    config = ScaarJobParams.from_params(params)
    outputs = job_outputs(Job(collection=collection, topic=topic), config)
    models = scaar_models()
    generator, embedder = models.generator_id, models.embedder_id
    keys = {
        pk: analysis_key(pk, generator, embedder, config.identity())
        for pk in outputs.values_list("pk", flat=True)
    }
    stored = set(ScaarAnalysis.objects.filter(key__in=keys.values()).values_list("key", flat=True))
    missing = [pk for pk, key in keys.items() if key not in stored]
    server = generator_server()
    base = {
        "items_left": len(missing),
        "items_stored": len(keys) - len(missing),
        "served_model": server.model if server else None,
        "notes": ("refinement's regenerated answers come on top of the prompt tokens",)
        if config.refine
        else (),
    }
    if not missing:
        return WorkLeft(**base)
    step = max(1, len(missing) // SAMPLE_OUTPUTS)
    sample = GeneratedOutput.objects.filter(pk__in=missing[::step][:SAMPLE_OUTPUTS])
    texts = [f"{o.topic.request}\n{o.text}" for o in sample.select_related("topic")]
    return WorkLeft(**base, **generator_tokens(texts).fields())
