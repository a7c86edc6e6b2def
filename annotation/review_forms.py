"""Forms of the review pages: a review campaign's queue choices, a decision, a reviewer."""

from __future__ import annotations

from django import forms

from crux_app.models import Collection

from .models import ReviewCampaign
from .review_queue import KINDS, SAMPLINGS
from .review_selection import QueueChoice
from .task_type_registry import task_type_choices
from .task_types import PASSAGE_RATING

MAX_NAMES = 50
MAX_SAMPLE = 100_000
MAX_TIME_SENT_MS = 10**12


def _names(text: str, what: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n for n in text.replace(",", " ").split() if n))
    if len(names) > MAX_NAMES:
        raise forms.ValidationError(f"at most {MAX_NAMES} {what}")
    return names


class ReviewCampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    collection = forms.ModelChoiceField(queryset=Collection.objects.order_by("name"))
    task_type = forms.ChoiceField(choices=task_type_choices, initial=PASSAGE_RATING)
    kind = forms.ChoiceField(label="disagreements", choices=list(KINDS.items()), initial="any")
    judges = forms.CharField(
        required=False,
        max_length=5000,
        help_text="Judge names, space-separated. Empty: every person who labelled (with a "
        "kind that needs machines: every judge).",
    )
    topics = forms.CharField(
        required=False, max_length=5000, help_text="Topic ids to keep, space-separated."
    )
    min_gap = forms.FloatField(
        label="smallest gap", min_value=0, max_value=100, initial=0, required=False
    )
    sampling = forms.ChoiceField(choices=list(SAMPLINGS.items()), initial="all")
    sample = forms.IntegerField(
        label="items", min_value=1, max_value=MAX_SAMPLE, required=False, help_text="Empty: all."
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0, required=False)
    show_sources = forms.BooleanField(
        label="see sources (name the judge of each candidate; off: blind review)",
        required=False,
    )
    guidelines_md = forms.CharField(
        label="guidelines (Markdown)", required=False, widget=forms.Textarea, max_length=20_000
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if ReviewCampaign.objects.filter(name=name).exists():
            raise forms.ValidationError("a review campaign with this name exists")
        return name

    def clean_judges(self) -> tuple[str, ...]:
        return _names(self.cleaned_data.get("judges") or "", "judges")

    def clean_topics(self) -> tuple[str, ...]:
        return _names(self.cleaned_data.get("topics") or "", "topics")

    def choice(self) -> QueueChoice:
        data = self.cleaned_data
        return QueueChoice(
            task_type=data["task_type"],
            judges=data["judges"],
            kind=data["kind"],
            topics=data["topics"],
            min_gap=data.get("min_gap") or 0.0,
            sample=data.get("sample"),
            sampling=data["sampling"],
            seed=data.get("seed") or 0,
        )


class DecisionForm(forms.Form):
    option = forms.CharField(required=False, max_length=1)
    # A typed label: a digit or letter, or a declared task's word (``partial_support``).
    other = forms.CharField(required=False, max_length=32)
    note = forms.CharField(required=False, max_length=5000, widget=forms.Textarea)
    time_spent_ms = forms.IntegerField(required=False, min_value=0, max_value=MAX_TIME_SENT_MS)

    def clean(self) -> dict:
        data = super().clean()
        for name in ("option", "other", "note"):
            if "\x00" in (data.get(name) or ""):
                raise forms.ValidationError(f"{name} holds a NUL character")
        return data


class ReviewerForm(forms.Form):
    username = forms.CharField(max_length=150)
