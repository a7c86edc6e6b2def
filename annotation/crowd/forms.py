"""The aggregation page's form: the declared choices (``AggregationParams``: method, judge
name, seed) with the task, the campaign and the judges (one name per line: names may hold
spaces)."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.crowd.params import AggregationParams
from annotation.models import Campaign
from annotation.task_types.names import DEFAULT_TASK_TYPE
from annotation.task_types.registry import task_type_choices
from crux_app.models import Collection
from crux_app.parameters import ParameterError, declared_form

MAX_JUDGES = 500


class AggregationForm(declared_form(AggregationParams, names=("method", "name", "seed"))):
    task = forms.ChoiceField(choices=task_type_choices, initial=DEFAULT_TASK_TYPE)
    campaign = forms.ChoiceField(
        required=False, help_text="Only this campaign's items and annotators."
    )
    judges = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One judge name per line (empty: every person). Name machine judges to "
        "let them join the model as workers.",
    )
    field_order = ["task", "method", "campaign", "judges", "name", "seed"]

    def __init__(self, *args: Any, collection: Collection, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        slugs = Campaign.objects.filter(collection=collection).order_by("name")
        self.fields["campaign"].choices = [("", "every label"), *slugs.values_list("slug", "name")]

    def clean_judges(self) -> tuple[str, ...]:
        names = [n.strip() for n in self.cleaned_data["judges"].splitlines() if n.strip()]
        if len(names) > MAX_JUDGES:
            raise forms.ValidationError(f"at most {MAX_JUDGES} judges")
        return tuple(dict.fromkeys(names))

    def params(self) -> AggregationParams:
        """The declared choices (ValidationError naming the field when a rule refuses)."""
        values = self.parameters.declared().form_values(self.cleaned_data)
        values["campaign"] = self.cleaned_data.get("campaign") or ""
        try:
            return AggregationParams.from_params(values)
        except ParameterError as error:
            raise forms.ValidationError({error.name or "__all__": str(error)}) from None
