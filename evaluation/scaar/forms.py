"""The form that starts a SCAAR job over a collection's generated outputs."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Collection, GeneratedOutput
from crux_app.parameters import declared_form
from evaluation.scaar.job import KIND
from evaluation.scaar.params import ScaarJobParams


class ScaarJobForm(declared_form(ScaarJobParams, CollectionJobForm)):
    """The system, then the fields declared in ``evaluation.scaar.params``."""

    job_kind = KIND
    field_order = ["system"]

    system = forms.ChoiceField(required=False, label="Outputs of system")

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, collection=collection, **kwargs)
        systems = (
            GeneratedOutput.objects.filter(collection=collection)
            .order_by("system")
            .values_list("system", flat=True)
            .distinct()
        )
        self.fields["system"].choices = [("", "(every system)")] + [(s, s) for s in systems]

    def parameter_values(self) -> dict[str, Any]:
        return {**super().parameter_values(), "system": self.cleaned_data["system"] or None}
