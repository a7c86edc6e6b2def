"""Forms of the LLM-retEval pages: start a job, filter the results, create a failure campaign."""

from __future__ import annotations

from django import forms

from crux_app.jobs.forms import CollectionJobForm, collection_runs
from crux_app.models import Collection, Run
from crux_app.parameters import declared_form
from crux_app.read_parameters import JUDGE, K, filter_fields
from evaluation.leaderboard.forms import TextModelChoiceField
from evaluation.reteval.job import KIND
from evaluation.reteval.params import RetEvalJobParams


class RetEvalJobForm(declared_form(RetEvalJobParams, CollectionJobForm)):
    """The run, then the fields declared in ``evaluation.reteval.params``."""

    job_kind = KIND
    field_order = ["run"]

    run = forms.ModelChoiceField(queryset=Run.objects.none())


class RetEvalFilterForm(forms.Form):
    """GET filters of the results page; an empty field means every value."""

    run = TextModelChoiceField(queryset=Run.objects.none(), required=False, to_field_name="name")
    k = filter_fields("k")["k"]  # the declared read-side k (crux_app.read_parameters)
    judge = forms.ChoiceField(required=False)

    def __init__(self, *args, collection: Collection, judges: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = collection_runs(collection)
        self.fields["judge"].choices = [("", "(most results)")] + [(j, j) for j in judges]


class FailureCampaignForm(forms.Form):
    run = forms.ModelChoiceField(queryset=Run.objects.none())
    # The declared read-side k and judge (crux_app.read_parameters).
    k = forms.IntegerField(min_value=K.minimum, max_value=K.maximum)
    judge = forms.CharField(max_length=JUDGE.max_length)
    overlap = forms.IntegerField(min_value=1, max_value=10, initial=2, label="Annotators per item")
    name = forms.CharField(max_length=200, required=False, help_text="empty: a generated name")

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = collection_runs(collection)
