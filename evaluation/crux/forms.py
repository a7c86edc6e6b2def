"""The form that starts a judging job (the LLM judge, greedy or in distribution mode, or the
embedding baseline) for the items of a scope its judge has not rated: with CRUX's 0-5 rubric or
the UMBRELA 0-3 relevance rubric (the judge's qrels), greedy or as a sampled repeat (a
temperature and a seed, for the judge's test-retest agreement), on every item or a sample."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.jobs.service import start_job
from crux_app.models import Collection, Run, Topic
from crux_app.parameters import declared_form
from crux_app.topic_lookup import TopicField
from evaluation.backends.model_ids import judge_model
from evaluation.crux.job import EMBEDDING, EMBEDDING_KIND, KIND
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

    def clean(self) -> dict:
        data = super().clean()
        if data.get("scope") == RUN and data.get("run") is None:
            self.add_error("run", "Choose the run whose top-k passages are judged.")
        if data.get("method") == EMBEDDING and data.get("model"):
            self.add_error("model", "The embedding baseline uses the workers' embedder.")
        if data.get("seed") is not None and not data.get("temperature"):
            self.add_error("seed", "A seed is for sampling: set a temperature above 0.")
        if not self.errors:
            try:
                JudgeJobParams.from_params(self.job_params())
            except ValueError as error:  # a combination the job refuses (rubric x method, ...)
                self.add_error(None, str(error))
        return data

    def start(self, user):
        """Start the job of the chosen judge (the embedding baseline has a kind of its own)."""
        kind = EMBEDDING_KIND if self.cleaned_data.get("method") == EMBEDDING else self.job_kind
        return start_job(
            kind, self.job_params(), collection=self.collection, topic=self.job_topic(), user=user
        )

    def params(self) -> JudgeJobParams:
        data = self.cleaned_data
        run = data.get("run") if data["scope"] == RUN else None
        return JudgeJobParams(
            **JudgeJobParams.declared().form_values(data),
            run_id=run.pk if run else None,
            prompt_version=data.get("prompt_version") or "",
        )

    def job_params(self) -> dict[str, Any]:
        data = self.cleaned_data
        return self.params().as_params(data.get("run") if data["scope"] == RUN else None)

    def job_topic(self) -> Topic | None:
        return self.cleaned_data.get("topic")
