"""The agreement page's selectors (GET): judges, tau, campaign, bootstrap resamples, the
disagreements listed per task, format."""

from __future__ import annotations

from typing import Any

from django import forms

from evaluation.agreement.bootstrap import DEFAULT_RESAMPLES, Bootstrap
from evaluation.agreement.label_tables import Rater
from evaluation.agreement.report import DEFAULT_DISAGREEMENTS, DEFAULT_TAU, AgreementOptions

MAX_RESAMPLES = 2000
MAX_DISAGREEMENTS = 500  # per task: each is a table row with its texts
FORMATS = ("page", "json", "csv", "html")
FORM_DEFAULTS = {"tau": str(DEFAULT_TAU), "resamples": str(DEFAULT_RESAMPLES)}


class AgreementForm(forms.Form):
    judge = forms.MultipleChoiceField(
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 4}),
        help_text="none selected: every judge",
    )
    tau = forms.FloatField(
        required=False, min_value=0.5, max_value=5, widget=forms.NumberInput(attrs={"step": 0.5})
    )
    campaign = forms.CharField(required=False, max_length=200)
    resamples = forms.IntegerField(required=False, min_value=0, max_value=MAX_RESAMPLES)
    max_disagreements = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_DISAGREEMENTS, widget=forms.HiddenInput
    )
    format = forms.ChoiceField(required=False, choices=[(f, f) for f in FORMATS])

    def __init__(self, *args: Any, raters: list[Rater], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["judge"].choices = [(r.name, f"{r.name} ({r.kind})") for r in raters]

    def options(self) -> AgreementOptions:
        data = self.cleaned_data
        resamples = data.get("resamples")
        shown = data.get("max_disagreements")
        return AgreementOptions(
            judges=tuple(data.get("judge") or ()),
            campaign=data.get("campaign") or None,
            tau=data.get("tau") or DEFAULT_TAU,
            bootstrap=Bootstrap(n_resamples=DEFAULT_RESAMPLES if resamples is None else resamples),
            max_disagreements=DEFAULT_DISAGREEMENTS if shown is None else shown,
        )
