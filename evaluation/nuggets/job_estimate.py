"""What a nugget judging job would cost (``JobKind.estimate_work``): the topics, answers or
sentences its plan holds, those whose every prompt the judge (model id + prompt version) has
stored skipped, and the prompt tokens of an evenly spread sample of the prompts left, counted
with the judge's tokenizer (no weights are loaded)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings

from crux_app.jobs.cost import WorkLeft
from crux_app.models import Collection, GeneratedOutput, Job, Judge, Topic
from evaluation.backends.model.ids import judge_model
from evaluation.backends.model.server import judge_server
from evaluation.backends.sample_tokens import local_tokens, served_tokens
from evaluation.nuggets.engine import DIGIT_TOKENS, LIST_TOKENS
from evaluation.nuggets.job import judge_version, planned, top_passages
from evaluation.nuggets.method.prompts import (
    assignment_prompt,
    creation_prompt,
    sentence_support_prompt,
)
from evaluation.nuggets.models import AnswerSentence, Nugget, NuggetAssignment, SentenceSupport
from evaluation.nuggets.params import NuggetJobParams

SAMPLE_PROMPTS = 32


def estimate_nuggets(
    params: Mapping[str, Any], collection: Collection | None, topic: Topic | None
) -> WorkLeft:
    """The ``WorkLeft`` of a nugget judging job (raises ValueError for parameters it refuses)."""
    if collection is None:
        raise ValueError("a nugget judging job needs a collection")
    config = NuggetJobParams.from_params(params)
    model_id = judge_model(None).model_id
    version = judge_version(config)
    judge = Judge.objects.filter(
        kind=Judge.Kind.LLM, model_id=model_id, prompt_version=version
    ).first()
    ids = planned(Job(collection=collection, topic=topic), config)
    left, prompts = _left_and_prompts(config, ids, judge)
    server = judge_server(None)
    base = {
        "items_left": len(left),
        "items_stored": len(ids) - len(left),
        "history": {"task": config.task},
        "served_model": server.model if server else None,
    }
    if config.task == "create":
        steps = math.ceil(config.passages / config.window)
        base |= {
            # Each rewrite step sees the list so far; importance adds a prompt per nugget.
            "prompts_per_item": float(steps),
            "max_output_tokens": steps * LIST_TOKENS,
            "notes": ("importance labelling adds one short prompt per nugget made",),
        }
    else:
        base |= {
            "prompts_per_item": len(prompts) / len(left) if left else 1.0,
            "max_output_tokens": 0 if config.distribution else DIGIT_TOKENS,
        }
    if not prompts:
        return WorkLeft(**base)
    sample = [prompts[i * len(prompts) // SAMPLE_PROMPTS] for i in range(SAMPLE_PROMPTS)]
    texts = sample if len(prompts) > SAMPLE_PROMPTS else prompts
    if server is not None:
        tokens = served_tokens(texts, "judge")
    else:
        name = settings.JUDGE_MODEL or settings.GENERATOR_MODEL
        tokens = local_tokens(texts, name, name or model_id, "judge")
    return WorkLeft(**base, **tokens.fields())


def _left_and_prompts(
    config: NuggetJobParams, ids: list[int], judge: Judge | None
) -> tuple[list[int], list[str]]:
    """The planned ids with a prompt left, and those prompts (a creation prompt per topic: its
    first step, the query and the first window of its top passages)."""
    if config.task == "create":
        prompts = []
        for topic in Topic.objects.filter(pk__in=ids).order_by("external_id"):
            texts = [p.text for p in top_passages(topic, config.window)]
            prompts.append(creation_prompt(topic.request, [], texts))
        return ids, prompts
    if config.task == "assign":
        return _assignment_prompts(config, ids, judge)
    return _support_prompts(ids, judge)


def _assignment_prompts(
    config: NuggetJobParams, ids: list[int], judge: Judge | None
) -> tuple[list[int], list[str]]:
    done = set()
    if judge is not None:
        done = set(
            NuggetAssignment.objects.filter(judge=judge, output_id__in=ids).values_list(
                "output_id", "nugget_id"
            )
        )
    left, prompts = [], []
    outputs = GeneratedOutput.objects.filter(pk__in=ids).select_related("topic").order_by("pk")
    for output in outputs:
        nuggets = Nugget.objects.filter(topic_id=output.topic_id).order_by("position")
        missing = [n for n in nuggets if (output.pk, n.pk) not in done]
        if not missing:
            continue
        answer = " ".join(output.sentences.order_by("position").values_list("text", flat=True))
        left.append(output.pk)
        prompts += [
            assignment_prompt(output.topic.request, answer, n.text, config.grades) for n in missing
        ]
    return left, prompts


def _support_prompts(ids: list[int], judge: Judge | None) -> tuple[list[int], list[str]]:
    done = set()
    if judge is not None:
        done = set(
            SentenceSupport.objects.filter(judge=judge, sentence_id__in=ids).values_list(
                "sentence_id", "passage_id"
            )
        )
    left, prompts = [], []
    for sentence in AnswerSentence.objects.filter(pk__in=ids).order_by("pk"):
        context = {c.position: c.passage for c in sentence.output.context.select_related("passage")}
        cited = [context.get(i) for i in dict.fromkeys(sentence.citations)]
        missing = [
            p for p in cited if p is not None and p.has_text and (sentence.pk, p.pk) not in done
        ]
        if missing:
            left.append(sentence.pk)
            prompts += [sentence_support_prompt(sentence.text, p.text) for p in missing]
    return left, prompts
