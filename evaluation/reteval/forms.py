"""Forms of the LLM-retEval pages: start a job, filter the results, create a failure campaign."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm, collection_runs
from crux_app.models import Collection, Run
from crux_app.parameters import declared_form
from evaluation.leaderboard.forms import TextModelChoiceField
from evaluation.reteval.job import KIND
from evaluation.reteval.params import MAX_K, RetEvalJobParams


class RetEvalJobForm(declared_form(RetEvalJobParams, CollectionJobForm)):
    """The run, then the fields declared in ``evaluation.reteval.params``."""

    job_kind = KIND
    field_order = ["run"]

    run = forms.ModelChoiceField(queryset=Run.objects.none())

    def params(self) -> RetEvalJobParams:
        values = RetEvalJobParams.declared().form_values(self.cleaned_data)
        return RetEvalJobParams(run_id=self.cleaned_data["run"].pk, **values)

    def job_params(self) -> dict[str, Any]:
        return self.params().as_params(self.cleaned_data["run"])


class RetEvalFilterForm(forms.Form):
    """GET filters of the results page; an empty field means every value."""

    run = TextModelChoiceField(queryset=Run.objects.none(), required=False, to_field_name="name")
    k = forms.IntegerField(min_value=1, max_value=MAX_K, required=False)
    judge = forms.ChoiceField(required=False)

    def __init__(self, *args, collection: Collection, judges: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = collection_runs(collection)
        self.fields["judge"].choices = [("", "(most results)")] + [(j, j) for j in judges]


class FailureCampaignForm(forms.Form):
    run = forms.ModelChoiceField(queryset=Run.objects.none())
    k = forms.IntegerField(min_value=1, max_value=MAX_K)
    judge = forms.CharField(max_length=300)
    overlap = forms.IntegerField(min_value=1, max_value=10, initial=2, label="Annotators per item")
    name = forms.CharField(max_length=200, required=False, help_text="empty: a generated name")

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = collection_runs(collection)
