"""The agreement page's selectors (GET): judges, tau, campaign, bootstrap resamples, the
disagreements listed per task, format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.http import QueryDict

from crux_app.judge_kinds import kind_label
from crux_app.models import Collection
from crux_app.read_parameters import TAU
from evaluation.agreement.label_tables import Rater, collection_campaigns, collection_raters
from evaluation.agreement.method.bootstrap import DEFAULT_RESAMPLES, Bootstrap
from evaluation.agreement.report import DEFAULT_DISAGREEMENTS, AgreementOptions

MAX_RESAMPLES = 2000
MAX_DISAGREEMENTS = 500  # per task: each is a table row with its texts
FORMATS = ("page", "json", "csv", "html")
FORM_DEFAULTS = {"tau": str(TAU.default), "resamples": str(DEFAULT_RESAMPLES)}


class CampaignField(forms.ChoiceField):
    """One of the collection's campaigns by slug; its name is taken too (the command's
    ``--campaign`` accepts either) and read as the slug."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.aliases: dict[str, str] = {}

    def to_python(self, value: Any) -> str:
        text = super().to_python(value)
        return self.aliases.get(text, text)


class AgreementForm(forms.Form):
    judge = forms.MultipleChoiceField(
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 4}),
        help_text="none selected: every judge",
    )
    tau = forms.FloatField(  # the declared tau's bounds (crux_app.read_parameters)
        required=False,
        help_text=TAU.help,
        min_value=TAU.minimum,
        max_value=TAU.maximum,
        widget=forms.NumberInput(attrs={"step": 0.5}),
    )
    campaign = CampaignField(required=False)
    resamples = forms.IntegerField(required=False, min_value=0, max_value=MAX_RESAMPLES)
    max_disagreements = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_DISAGREEMENTS, widget=forms.HiddenInput
    )
    format = forms.ChoiceField(required=False, choices=[(f, f) for f in FORMATS])

    def __init__(
        self,
        *args: Any,
        raters: list[Rater],
        campaigns: Sequence[tuple[str, str]] = (),  # (slug, name)
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["judge"].choices = [
            (r.name, f"{r.name} ({kind_label(r.kind, r.prompt_version)})") for r in raters
        ]
        campaign = self.fields["campaign"]
        campaign.choices = [("", "every judgment (no campaign)"), *campaigns]
        campaign.aliases = {name: slug for slug, name in campaigns}
        listing = ", ".join(repr(name) for _, name in campaigns) or "none"
        campaign.error_messages["invalid_choice"] = (
            f"campaign %(value)s does not exist in this collection; campaigns there: {listing}"
        )

    def options(self) -> AgreementOptions:
        data = self.cleaned_data
        resamples = data.get("resamples")
        shown = data.get("max_disagreements")
        return AgreementOptions(
            judges=tuple(data.get("judge") or ()),
            campaign=data.get("campaign") or None,
            tau=data.get("tau") or TAU.default,
            bootstrap=Bootstrap(n_resamples=DEFAULT_RESAMPLES if resamples is None else resamples),
            max_disagreements=DEFAULT_DISAGREEMENTS if shown is None else shown,
        )


def page_form(query: QueryDict, collection: Collection) -> AgreementForm:
    """The page's selectors from its query (the page's, its plots' and its exports' doors),
    bound with the defaults filled in: the selectors show the values in use."""
    data = query.copy()
    for name, value in FORM_DEFAULTS.items():
        data.setdefault(name, value)
    return AgreementForm(
        data,
        raters=collection_raters(collection),
        campaigns=collection_campaigns(collection),
    )
