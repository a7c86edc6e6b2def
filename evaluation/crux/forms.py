"""The form that starts a judging job (the LLM judge, greedy or in distribution mode, or the
embedding baseline) for the items of a scope its judge has not rated."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.jobs.service import start_job
from crux_app.models import Collection, Run, Topic
from evaluation.backends.model_ids import judge_model
from evaluation.crux.job import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_K,
    DISTRIBUTION,
    EMBEDDING,
    EMBEDDING_KIND,
    KIND,
    LLM,
    JudgeJobParams,
)
from evaluation.crux.judge_scope import RUN, SCOPES
from evaluation.crux.method.judge_prompts import DEFAULT_PROMPT_VERSION, PROMPTS


def configured_judge_model() -> str:
    """The model the workers judge with when a job names none (JUDGE_MODEL, as get_judge)."""
    return judge_model().model_id


class JudgeJobForm(CollectionJobForm):
    job_kind = KIND

    """Every field but the scope has a default, so a one-click button posts only what differs."""

    scope = forms.ChoiceField(choices=list(SCOPES.items()), initial="collection")
    method = forms.ChoiceField(
        choices=[
            (LLM, "LLM judge, greedy rating (as the paper)"),
            (DISTRIBUTION, "LLM judge, rating distribution (no generation)"),
            (EMBEDDING, "embedding baseline (no LLM, cpu queue)"),
        ],
        required=False,
        initial=LLM,
        label="Judge",
    )
    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        required=False,
        empty_label="(any run)",
        help_text="Required for the one-run scope.",
    )
    topic = forms.ModelChoiceField(
        queryset=Topic.objects.none(), required=False, empty_label="all topics"
    )
    k = forms.IntegerField(
        min_value=1, max_value=1000, required=False, initial=DEFAULT_K, label="Top k"
    )
    model = forms.CharField(
        max_length=300,
        required=False,
        label="Judge model",
        help_text="A hub id or local path; blank: the configured judge.",
    )
    prompt_version = forms.ChoiceField(
        choices=[(v, v) for v in PROMPTS], required=False, initial=DEFAULT_PROMPT_VERSION
    )
    batch_size = forms.IntegerField(
        min_value=1, max_value=512, required=False, initial=DEFAULT_BATCH_SIZE,
        help_text="Items per model call.",
    )  # fmt: skip

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, collection=collection, **kwargs)
        self.fields["topic"].queryset = Topic.objects.filter(collection=collection).order_by(
            "external_id"
        )
        self.fields["model"].widget.attrs["placeholder"] = configured_judge_model()

    def clean(self) -> dict:
        data = super().clean()
        if data.get("scope") == RUN and data.get("run") is None:
            self.add_error("run", "Choose the run whose top-k passages are judged.")
        if data.get("method") == EMBEDDING and data.get("model"):
            self.add_error("model", "The embedding baseline uses the workers' embedder.")
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
            scope=data["scope"],
            run_id=run.pk if run else None,
            k=data.get("k") or DEFAULT_K,
            model=data.get("model") or None,
            prompt_version=data.get("prompt_version") or DEFAULT_PROMPT_VERSION,
            batch_size=data.get("batch_size") or DEFAULT_BATCH_SIZE,
            method=data.get("method") or LLM,
        )

    def job_params(self) -> dict[str, Any]:
        data = self.cleaned_data
        return self.params().as_params(data.get("run") if data["scope"] == RUN else None)

    def job_topic(self) -> Topic | None:
        return self.cleaned_data.get("topic")
