"""What an LLM-retEval job would cost (``JobKind.estimate_work``): the planned questions without
a result at every k for the configured judge, and the prompt tokens of an evenly spread sample
of them (the RAG prompt at each k: the question and the run's top-k; the semi-gold prompt, the
question and its gold passages, once per semi-gold answer), counted with the generator's
tokenizer. The judge's comparisons come on top."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Count

from crux_app.jobs.cost import WorkLeft
from crux_app.jobs.scope import required_job_run
from crux_app.models import Collection, Job, Topic
from evaluation.backends.model.server import generator_server
from evaluation.backends.sample_tokens import generator_tokens
from evaluation.reteval.job import RetEvalJobParams, planned_topics
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.models import RetEvalResult
from evaluation.reteval.result_rows import top_k
from evaluation.reteval.semi_gold import gold_passages

SAMPLE_QUESTIONS = 8


def estimate_reteval(
    params: Mapping[str, Any], collection: Collection | None, topic: Topic | None
) -> WorkLeft:
    """The ``WorkLeft`` of an LLM-retEval job (raises ValueError for parameters it would refuse)."""
    from evaluation.reteval.tasks import reteval_models  # the workers' model ids, nothing loaded

    config = RetEvalJobParams.from_params(params)
    run = required_job_run(Job(collection=collection, topic=topic), config.run_id)
    topic_ids = planned_topics(run, topic.pk if topic else None, config.max_questions)
    complete = set(
        RetEvalResult.objects.filter(
            topic_id__in=topic_ids,
            run=run,
            k__in=config.ks,
            judge=reteval_models().judge_id,
            prompt_version=PROMPT_VERSION,
        )
        .values("topic_id")
        .annotate(n=Count("k", distinct=True))
        .filter(n=len(config.ks))
        .values_list("topic_id", flat=True)
    )
    missing = [pk for pk in topic_ids if pk not in complete]
    server = generator_server()
    base = {
        "items_left": len(missing),
        "items_stored": len(topic_ids) - len(missing),
        "max_output_tokens": (len(config.ks) + config.n_semi_gold) * config.max_new_tokens,
        "served_model": server.model if server else None,
        "notes": ("the judge's comparisons come on top of the prompt tokens",),
    }
    if not missing:
        return WorkLeft(**base)
    sample = missing[:: max(1, len(missing) // SAMPLE_QUESTIONS)][:SAMPLE_QUESTIONS]
    requests = dict(Topic.objects.filter(pk__in=sample).values_list("pk", "request"))
    ranked = {k: top_k(run, sample, k) for k in config.ks}
    gold = gold_passages(sample)
    texts = []
    for pk in sample:
        rag = [requests[pk], *(p.text for k in config.ks for p in ranked[k].get(pk, []))]
        semi_gold = [requests[pk], *(p.text for p in gold.get(pk, []))] * config.n_semi_gold
        texts.append("\n".join(rag + semi_gold))
    return WorkLeft(**base, **generator_tokens(texts).fields())
