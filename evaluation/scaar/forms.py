"""The form that starts a SCAAR job over a collection's generated outputs."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Collection, GeneratedOutput
from evaluation.scaar.job import DEFAULT_BATCH_SIZE, DEFAULT_K, KIND, ScaarJobParams

WEIGHTING_CHOICES = [
    ("raw", "exp(r) · θ0 (Eq. 3 as printed)"),
    ("normalised", "exp(r') · θ0 (normalised contribution)"),
]


class ScaarJobForm(CollectionJobForm):
    job_kind = KIND

    system = forms.ChoiceField(required=False, label="Outputs of system")
    theta0 = forms.FloatField(min_value=0.01, max_value=1.0, initial=0.8, label="θ0")
    alpha = forms.FloatField(
        min_value=0.01, max_value=1.0, initial=0.5, label="α (share of words PFQ keeps)"
    )
    weighting = forms.ChoiceField(choices=WEIGHTING_CHOICES, initial="raw")
    k = forms.IntegerField(min_value=1, max_value=20, initial=DEFAULT_K, label="Passages per query")
    refine = forms.BooleanField(
        required=False,
        initial=True,
        label="Regenerate answers with gold answers from the retrieved passages (S_eff)",
    )

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, collection=collection, **kwargs)
        systems = (
            GeneratedOutput.objects.filter(collection=collection)
            .order_by("system")
            .values_list("system", flat=True)
            .distinct()
        )
        self.fields["system"].choices = [("", "(every system)")] + [(s, s) for s in systems]

    def params(self) -> ScaarJobParams:
        data = self.cleaned_data
        return ScaarJobParams(
            theta0=data["theta0"],
            alpha=data["alpha"],
            weighting=data["weighting"],
            k=data["k"],
            refine=data["refine"],
            system=data["system"] or None,
            batch_size=DEFAULT_BATCH_SIZE,
        )

    def job_params(self) -> dict[str, Any]:
        return self.params().as_params()
