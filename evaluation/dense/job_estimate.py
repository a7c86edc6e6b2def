"""What a DENSE job would cost (``JobKind.estimate_work``): the questions whose row is not stored
for the configured models and these settings, and their prompt tokens from an evenly spread
sample counted with the generator's tokenizer (no weights are loaded).

A question's prompts are roughly (k + 2) copies of its question and top-k context: the answers
under the original context and under each of the k single-edit contexts, plus the k rephrasings
of one passage each. NLI calls, the yes/no step and refinement come on top, so the figure is a
floor; past DENSE jobs measure the real time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crux_app.jobs.cost import WorkLeft
from crux_app.jobs.scope import required_job_run
from crux_app.models import Collection, Job, Topic
from evaluation.backends.model.ids import embedder_model, generator_model, nli_model
from evaluation.backends.model.server import generator_server
from evaluation.backends.sample_tokens import generator_tokens
from evaluation.dense.job import DenseJobParams, plan_topic
from evaluation.dense.models import DenseResult, dense_key

SAMPLE_QUESTIONS = 8


def estimate_dense(
    params: Mapping[str, Any], collection: Collection | None, topic: Topic | None
) -> WorkLeft:
    """The ``WorkLeft`` of a DENSE job (raises ValueError for parameters it would refuse)."""
    config = DenseJobParams.from_params(params)
    run = required_job_run(Job(collection=collection, topic=topic), config.run_id)
    topics = Topic.objects.filter(collection=collection)
    if topic is not None:
        topics = topics.filter(pk=topic.pk)
    generator, nli = generator_model().model_id, nli_model().model_id
    result_params = config.result_params(embedder_model().model_id)
    keys = {
        pk: dense_key(pk, run.pk, config.k, generator, nli, result_params)
        for pk in topics.order_by("external_id").values_list("pk", flat=True)
    }
    stored = set(DenseResult.objects.filter(key__in=keys.values()).values_list("key", flat=True))
    missing = [pk for pk, key in keys.items() if key not in stored]
    server = generator_server()
    base = {
        "items_left": len(missing),
        "items_stored": len(keys) - len(missing),
        "prompts_per_item": config.k + 2,
        # (k + 1) answers and k rephrasings, each at most its decoding's new tokens.
        "max_output_tokens": (config.k + 1) * config.answer_max_new_tokens
        + config.k * config.rephrase_max_new_tokens,
        # Jobs do not record their models: past jobs with the same costly steps stand in.
        "history": {"refine": config.refine, "chunking": config.chunking},
        "served_model": server.model if server else None,
        "notes": ("DENSE's NLI calls and refinement come on top of the prompt tokens",),
    }
    if not missing:
        return WorkLeft(**base)
    step = max(1, len(missing) // SAMPLE_QUESTIONS)
    sample = Topic.objects.filter(pk__in=missing[::step][:SAMPLE_QUESTIONS])
    texts = []
    for question in sample:
        plan = plan_topic(question, run, config, keys[question.pk])
        texts.append("\n".join([question.request, *plan.texts[: config.k]]))
    return WorkLeft(**base, **generator_tokens(texts).fields())
