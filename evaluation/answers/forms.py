"""The form that starts a ``generate_answers`` job on one collection."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Run
from evaluation.answers.generation import DEFAULT_K
from evaluation.answers.job import KIND, AnswerJobParams


class GenerateAnswersForm(CollectionJobForm):
    job_kind = KIND

    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        required=False,
        empty_label="none (closed-book)",
        help_text="Context passages come from this run's top-k; none answers without context.",
    )
    k = forms.IntegerField(min_value=1, max_value=100, initial=DEFAULT_K, label="Top k")

    def job_params(self) -> dict[str, Any]:
        run = self.cleaned_data.get("run")
        config = AnswerJobParams(run_id=run.pk if run else None, k=self.cleaned_data["k"])
        return config.as_params(run)
