"""The form that starts a SePer job over a QA collection's topics."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Run
from evaluation.seper.job import DEFAULT_BATCH_SIZE, DEFAULT_K, DEFAULT_N, KIND, SeperJobParams


class SeperJobForm(CollectionJobForm):
    job_kind = KIND

    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        required=False,
        empty_label="(no run: baseline and gold passages only)",
    )
    k = forms.IntegerField(min_value=1, max_value=100, initial=DEFAULT_K, label="Top k")
    n_samples = forms.IntegerField(
        min_value=1, max_value=100, initial=DEFAULT_N, label="N (samples per prompt)"
    )
    temperature = forms.FloatField(min_value=0.01, max_value=5.0, initial=1.0)
    seed = forms.IntegerField(min_value=0, max_value=2**32 - 1, initial=0)

    def params(self) -> SeperJobParams:
        data = self.cleaned_data
        run = data.get("run")
        return SeperJobParams(
            run_id=run.pk if run else None,
            k=data["k"],
            n_samples=data["n_samples"],
            temperature=data["temperature"],
            seed=data["seed"],
            batch_size=DEFAULT_BATCH_SIZE,
        )

    def job_params(self) -> dict[str, Any]:
        return self.params().as_params(self.cleaned_data.get("run"))
