"""The form that starts a DENSE job, and the researcher's yes/no judgment of one decision."""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import AbstractBaseUser

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Run, Topic
from crux_app.parameters import declared_form
from evaluation.dense.job import KIND
from evaluation.dense.labels import record_label
from evaluation.dense.models import DenseLabel, DenseResult
from evaluation.dense.params import DenseJobParams
from evaluation.leaderboard.forms import TextModelChoiceField

MAX_ID = 2**63 - 1  # primary keys are bigint
MAX_INDEX = 10_000  # a chunk or response index; results hold a few dozen


class DenseJobForm(declared_form(DenseJobParams, CollectionJobForm)):
    """The run, then the fields declared in ``evaluation.dense.params``."""

    job_kind = KIND
    field_order = ["run"]

    run = forms.ModelChoiceField(queryset=Run.objects.none(), empty_label=None)


class DenseRunFilterForm(forms.Form):
    """GET ``run`` of the collection page: a run name of the collection; empty: every run."""

    run = TextModelChoiceField(queryset=Run.objects.none(), required=False, to_field_name="name")

    def __init__(self, *args, collection, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = Run.objects.filter(collection=collection)


class DenseResultQueryForm(forms.Form):
    """GET ``result`` of the topic page: a result id; empty: the newest result."""

    result = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)


class DenseLabelForm(forms.Form):
    result = forms.ModelChoiceField(
        queryset=DenseResult.objects.none(),
        error_messages={"invalid_choice": "No such DENSE result on this topic."},
    )
    kind = forms.ChoiceField(choices=DenseLabel.Kind.choices)
    i = forms.IntegerField(min_value=0, max_value=MAX_INDEX, initial=0)
    j = forms.IntegerField(min_value=0, max_value=MAX_INDEX, initial=0)
    answer = forms.ChoiceField(
        choices=[("yes", "Yes"), ("no", "No")], error_messages={"required": "Answer yes or no."}
    )

    def __init__(self, *args, topic: Topic, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["result"].queryset = DenseResult.objects.filter(topic=topic)

    def clean(self) -> dict:
        data = super().clean()
        result, kind, i, j = (data.get(n) for n in ("result", "kind", "i", "j"))
        if result is None or kind is None or i is None or j is None:
            return data
        n = result.n_responses
        if kind == DenseLabel.Kind.ANSWER_CORRECT and (i, j) != (0, 0):
            raise forms.ValidationError("The original answer is judged with i = j = 0.")
        if kind == DenseLabel.Kind.REPHRASE_FAITHFUL and not (1 <= i < n and j == 0):
            raise forms.ValidationError(f"Result {result.pk} has no chunk {i}.")
        if kind == DenseLabel.Kind.RESPONSE_EQUIVALENT and not (0 <= i < j < n):
            raise forms.ValidationError(f"Result {result.pk} has no response pair {i}, {j}.")
        return data

    def save(self, user: AbstractBaseUser) -> tuple[DenseLabel, bool]:
        d = self.cleaned_data
        return record_label(user, d["result"], d["kind"], d["i"], d["j"], d["answer"] == "yes")
