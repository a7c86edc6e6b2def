"""What a SePer job would cost (``JobKind.estimate_work``): the questions with a context whose
score is not stored for the configured models and sampling settings, and the prompt tokens of
an evenly spread sample of those contexts (the question and the context), counted with the
generator's tokenizer; every context is sampled ``n_samples`` times. The NLI calls that
cluster the samples come on top."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from crux_app.jobs.cost import WorkLeft
from crux_app.jobs.scope import job_run
from crux_app.models import Collection, Job, Topic
from evaluation.backends.model.server import generator_server
from evaluation.backends.sample_tokens import generator_tokens
from evaluation.seper.job import SeperJobParams, TopicScorer
from evaluation.seper.models import SeperScore
from evaluation.seper.units import plan_contexts, scorable_topic_ids, units_for_topics

SAMPLE_CONTEXTS = 16


def estimate_seper(
    params: Mapping[str, Any], collection: Collection | None, topic: Topic | None
) -> WorkLeft:
    """The ``WorkLeft`` of a SePer job (raises ValueError for parameters it would refuse)."""
    from evaluation.seper.tasks import seper_models  # the workers' model ids, nothing loaded

    config = SeperJobParams.from_params(params)
    sampling = config.sampling()
    run = job_run(Job(collection=collection, topic=topic), config.run_id)
    topics = Topic.objects.filter(collection=collection)
    if topic is not None:
        topics = topics.filter(pk=topic.pk)
    topic_ids = scorable_topic_ids(topics)
    scorer = TopicScorer(run, config, seper_models())  # for its row keys only
    units = units_for_topics(Topic.objects.filter(pk__in=topic_ids).order_by("external_id"))
    contexts = [(u, c) for u in units for c in plan_contexts(u, run, config.k)]
    keys = [scorer.key(u, c) for u, c in contexts]
    stored = set(SeperScore.objects.filter(key__in=keys).values_list("key", flat=True))
    missing = [uc for uc, key in zip(contexts, keys, strict=True) if key not in stored]
    left = len({u.topic.pk for u, _ in missing})
    server = generator_server()
    per_question = len(missing) / left if left else 0.0  # contexts to score per question left
    base = {
        "items_left": left,
        "items_stored": len(topic_ids) - left,
        "prompts_per_item": per_question * sampling.n_samples,
        "max_output_tokens": math.ceil(per_question * sampling.n_samples * sampling.max_new_tokens),
        "history": {"k": config.k, "n_samples": config.n_samples},
        "served_model": server.model if server else None,
        "notes": ("the NLI calls that cluster the samples come on top of the prompt tokens",),
    }
    if not missing:
        return WorkLeft(**base)
    step = max(1, len(missing) // SAMPLE_CONTEXTS)
    texts = [f"{u.question}\n{c.text}" for u, c in missing[::step][:SAMPLE_CONTEXTS]]
    return WorkLeft(**base, **generator_tokens(texts).fields())
