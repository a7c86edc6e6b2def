"""The form that starts a judging job (the LLM judge, greedy or in distribution mode, or the
embedding baseline) for the items of a scope its judge has not rated: with CRUX's 0-5 rubric or
the UMBRELA 0-3 relevance rubric (the judge's qrels), greedy or as a sampled repeat (a
temperature and a seed, for the judge's test-retest agreement), on every item or a sample."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Collection, Run, Topic
from crux_app.parameters import declared_form
from crux_app.topic_lookup import TopicField
from evaluation.backends.model.ids import judge_model
from evaluation.crux.job import KIND
from evaluation.crux.judge_scope import RUN
from evaluation.crux.method.judge_prompts import RUBRIC_PROMPTS
from evaluation.crux.params import JudgeJobParams


def configured_judge_model() -> str:
    """The model the workers judge with when a job names none (JUDGE_MODEL, as get_judge)."""
    return judge_model().model_id


class JudgeJobForm(declared_form(JudgeJobParams, CollectionJobForm)):
    """The fields declared in ``evaluation.crux.params``, with the run, the topic and the
    prompt version among them. Every field but the scope has a default, so a one-click button
    posts only what differs."""

    job_kind = KIND
    field_order = [
        "scope",
        "method",
        "run",
        "topic",
        "k",
        "model",
        "rubric",
        "prompt_version",
        "temperature",
        "seed",
        "sample_size",
        "batch_size",
    ]

    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        required=False,
        empty_label="(any run)",
        help_text="Required for the one-run scope.",
    )
    topic = TopicField(required=False, help_text="Blank: all topics.")
    # Any stored version parses in the job; the form offers the rubrics' known ones.
    prompt_version = forms.ChoiceField(
        choices=[("", "the rubric's latest")]
        + [(v, v) for prompts in RUBRIC_PROMPTS.values() for v in prompts],
        required=False,
        initial="",
    )

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, collection=collection, **kwargs)
        self.fields["topic"].for_collection(collection)
        self.fields["model"].widget.attrs["placeholder"] = configured_judge_model()

    def job_run(self) -> Run | None:
        """The run of the ``run`` scope (the other scopes take none)."""
        return self.cleaned_data.get("run") if self.cleaned_data.get("scope") == RUN else None

    def parameter_values(self) -> dict[str, Any]:
        return {
            **super().parameter_values(),
            "prompt_version": self.cleaned_data.get("prompt_version") or "",
        }

    def job_topic(self) -> Topic | None:
        return self.cleaned_data.get("topic")
