"""What a judging job would cost (``JobKind.estimate_work`` of both judging kinds): the items
its plan would judge, stored ratings skipped, and the rubric prompt tokens of an evenly spread
sample of them counted with the judge's tokenizer (no weights are loaded)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings

from crux_app.jobs.cost import WorkLeft
from crux_app.models import Collection, GeneratedOutput, Judge, Passage, SubQuestion, Topic
from evaluation.backends.model.ids import embedder_model, judge_model
from evaluation.backends.model.server import judge_server
from evaluation.backends.sample_tokens import local_tokens, served_tokens
from evaluation.crux.judge_scope import ItemKey, JudgePlan, PairKey, ScopeSpec, plan_items
from evaluation.crux.method.judge_prompts import JUDGE_MAX_NEW_TOKENS
from evaluation.crux.params import DISTRIBUTION, EMBEDDING, JudgeJobParams

# Items whose prompts are tokenized: enough for a mean within a few percent on typical passage
# lengths, few enough for a page request.
SAMPLE_ITEMS = 32


def judge_identity(config: JudgeJobParams) -> tuple[str, str]:
    """(model id, prompt version) a job with these parameters stores ratings as (the tasks'
    model choice: the workers' embedder, or the named or configured judge)."""
    if config.method == EMBEDDING:
        return embedder_model().model_id, config.prompt_version
    return judge_model(config.model).model_id, config.prompt_version


def stored_judge(config: JudgeJobParams) -> Judge | None:
    """The judge identity a job with these parameters rates as, if it exists yet."""
    model_id, version = judge_identity(config)
    return Judge.objects.filter(
        kind=Judge.Kind.LLM, model_id=model_id, prompt_version=version
    ).first()


def estimate_judging(
    params: Mapping[str, Any], collection: Collection | None, topic: Topic | None
) -> WorkLeft:
    """The ``WorkLeft`` of a judging job (raises ValueError for parameters it would refuse)."""
    if collection is None:
        raise ValueError("a judging job needs a collection")
    config = JudgeJobParams.from_params(params)
    judge = stored_judge(config)
    spec = config.scope_spec(collection, topic.pk if topic else None)
    return judging_work(config, spec, judge, plan_items(spec, judge))


def judging_work(
    config: JudgeJobParams, spec: ScopeSpec, judge: Judge | None, plan: JudgePlan
) -> WorkLeft:
    """The ``WorkLeft`` of a planned judging job (the page's count reuses its plan)."""
    model_id, version = judge_identity(config)
    name = judge.name if judge else Judge.llm_name(model_id, version)
    base = {
        "items_left": len(plan.missing),
        "items_stored": plan.already_judged,
        "history": {"judge": name},  # the job records the judge it rated as
    }
    if config.method == EMBEDDING:
        return WorkLeft(**base, tokens_note="the embedding baseline sends no prompt to an LLM")
    server = judge_server(config.model)
    served = server.model if server else None
    # Distribution mode reads the rating tokens' probabilities: it generates nothing.
    max_output = 0 if config.method == DISTRIBUTION else JUDGE_MAX_NEW_TOKENS
    if not plan.missing:
        return WorkLeft(**base, served_model=served, max_output_tokens=max_output)
    prompt = config.prompt()
    texts = [prompt.render(q, c) for q, c in _sample_texts(spec, even_sample(plan.missing))]
    if server is not None:
        tokens = served_tokens(texts, "judge")
    else:
        name = _local_judge(config.model)
        tokens = local_tokens(texts, name, name or model_id, "judge")
    return WorkLeft(**base, served_model=served, max_output_tokens=max_output, **tokens.fields())


def _local_judge(model: str | None) -> str:
    """The local judge's model setting, as ``registry.get_judge`` reads it."""
    return (settings.JUDGE_MODEL or settings.GENERATOR_MODEL) if model is None else model


def even_sample(keys: Sequence, size: int = SAMPLE_ITEMS) -> list:
    """``size`` keys spread evenly over ``keys`` (all of them when there are fewer): the
    scope's order groups a topic's items, so the first ones would see one topic only."""
    if len(keys) <= size:
        return list(keys)
    return [keys[i * len(keys) // size] for i in range(size)]


def _sample_texts(spec: ScopeSpec, keys: Sequence[ItemKey | PairKey]) -> list[tuple[str, str]]:
    """(question, context) of each key, as the job shows them to the judge."""
    if spec.pairs:
        queries = dict(
            Topic.objects.filter(pk__in={k.topic_id for k in keys}).values_list("pk", "request")
        )
        texts = dict(
            Passage.objects.filter(pk__in={k.passage_id for k in keys}).values_list("pk", "text")
        )
        return [(queries[k.topic_id], texts[k.passage_id]) for k in keys]
    questions = dict(
        SubQuestion.objects.filter(pk__in={k.subquestion_id for k in keys}).values_list(
            "pk", "text"
        )
    )
    targets = GeneratedOutput.objects if spec.judges_outputs else Passage.objects
    texts = dict(targets.filter(pk__in={k.target_id for k in keys}).values_list("pk", "text"))
    return [(questions[k.subquestion_id], texts[k.target_id]) for k in keys]
