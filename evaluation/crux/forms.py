"""The form that starts a judging job (the LLM judge, greedy or in distribution mode, or the
embedding baseline) for the items of a scope its judge has not rated: with CRUX's 0-5 rubric or
the UMBRELA 0-3 relevance rubric (the judge's qrels), greedy or as a sampled repeat (a
temperature and a seed, for the judge's test-retest agreement), on every item or a sample."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.jobs.service import start_job
from crux_app.models import Collection, Run, Topic
from crux_app.topic_lookup import TopicField
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
from evaluation.crux.judge_params import MAX_SAMPLE_SIZE, MAX_SEED
from evaluation.crux.judge_scope import RUN, SCOPES
from evaluation.crux.method.judge_prompts import CRUX, RUBRIC_PROMPTS, RUBRICS
from evaluation.judge_report.method.self_consistency import MAX_TEMPERATURE


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
    topic = TopicField(required=False, help_text="Blank: all topics.")
    k = forms.IntegerField(
        min_value=1, max_value=1000, required=False, initial=DEFAULT_K, label="Top k"
    )
    model = forms.CharField(
        max_length=300,
        required=False,
        label="Judge model",
        help_text="A hub id or local path; blank: the configured judge.",
    )
    rubric = forms.ChoiceField(
        choices=list(RUBRICS.items()),
        required=False,
        initial=CRUX,
        help_text="UMBRELA grades each (query, passage) pair of the scope 0-3 and stores the "
        "grades as this judge's qrels (nDCG, MAP, ... under the judge on the leaderboard).",
    )
    prompt_version = forms.ChoiceField(
        choices=[("", "the rubric's latest")]
        + [(v, v) for prompts in RUBRIC_PROMPTS.values() for v in prompts],
        required=False,
        initial="",
    )
    temperature = forms.DecimalField(
        min_value=Decimal(0), max_value=Decimal(str(MAX_TEMPERATURE)), decimal_places=2,
        required=False, initial=Decimal(0),
        help_text="0: greedy. Above 0: a sampled repeat of the judge, a judge identity of its "
        "own (model, prompt version, temperature, seed), for its test-retest agreement.",
    )  # fmt: skip
    seed = forms.IntegerField(
        min_value=0, max_value=MAX_SEED, required=False,
        help_text="The repeat's sampling seed (blank: 0).",
    )  # fmt: skip
    sample_size = forms.IntegerField(
        min_value=1, max_value=MAX_SAMPLE_SIZE, required=False,
        help_text="Rate a seeded random sample of this many items of the scope (the same sample "
        "for every repeat); blank: every item.",
    )  # fmt: skip
    batch_size = forms.IntegerField(
        min_value=1, max_value=512, required=False, initial=DEFAULT_BATCH_SIZE,
        help_text="Items per model call.",
    )  # fmt: skip

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
            scope=data["scope"],
            run_id=run.pk if run else None,
            k=data.get("k") or DEFAULT_K,
            model=data.get("model") or None,
            prompt_version=data.get("prompt_version") or "",
            batch_size=data.get("batch_size") or DEFAULT_BATCH_SIZE,
            method=data.get("method") or LLM,
            rubric=data.get("rubric") or CRUX,
            temperature=float(data.get("temperature") or 0),
            seed=data.get("seed"),
            sample_size=data.get("sample_size"),
        )

    def job_params(self) -> dict[str, Any]:
        data = self.cleaned_data
        return self.params().as_params(data.get("run") if data["scope"] == RUN else None)

    def job_topic(self) -> Topic | None:
        return self.cleaned_data.get("topic")
