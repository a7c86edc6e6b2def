"""Forms of the review pages: a review campaign's queue choices, a decision, a reviewer."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet
from django.http import QueryDict

from annotation.labels.collection import collection_labels
from annotation.models import ReviewCampaign
from annotation.models.access import writable_collections
from annotation.models.review import KINDS, SAMPLINGS
from annotation.review.selection import QueueChoice
from annotation.task_types.names import DEFAULT_TASK_TYPE
from annotation.task_types.registry import task_type_choices
from annotation.workspace.forms import MAX_TIME_SENT_MS
from crux_app.models import Collection

MAX_NAMES = 50
MAX_SAMPLE = 100_000
MAX_PK_DIGITS = 18  # a primary key's digits (a bigint); more names no row


def _names(text: str, what: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n for n in text.replace(",", " ").split() if n))
    if len(names) > MAX_NAMES:
        raise forms.ValidationError(f"at most {MAX_NAMES} {what}")
    return names


class ReviewCampaignForm(forms.Form):
    """The new review campaign page: the judges are chosen from those that labelled the chosen
    collection's task (``judge_choices``); the API's form takes them as a list of names."""

    name = forms.CharField(max_length=200)
    collection = forms.ModelChoiceField(queryset=Collection.objects.order_by("name"))
    task_type = forms.ChoiceField(choices=task_type_choices, initial=DEFAULT_TASK_TYPE)
    kind = forms.ChoiceField(label="disagreements", choices=list(KINDS.items()), initial="any")
    judges = forms.MultipleChoiceField(
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="The judges that labelled this task in the collection. None selected: every "
        "person who labelled (with a kind that needs machines: every judge).",
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

    def __init__(self, *args: Any, who: object = None, **kwargs: Any) -> None:
        """``who``: the asker, offered only the collections it may change (None: the
        operator, every collection)."""
        super().__init__(*args, **kwargs)
        collections = writable_collections(who).order_by("name")
        self.fields["collection"].queryset = collections
        judges = self.fields["judges"]
        if isinstance(judges, forms.MultipleChoiceField):  # the page's (the API takes names)
            chosen = self._chosen("collection"), self._chosen("task_type")
            judges.choices = judge_choices(*chosen, collections=collections)

    def _chosen(self, name: str) -> str:
        """The value of ``name`` the form is bound to, or its initial one ("" for none)."""
        value = self.data.get(name) if self.is_bound else self.initial.get(name)
        if value is None:
            value = self.fields[name].initial
        return value if isinstance(value, str) else str(value or "")

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if ReviewCampaign.objects.filter(name=name).exists():
            raise forms.ValidationError("a review campaign with this name exists")
        return name

    def clean_judges(self) -> tuple[str, ...]:
        chosen = tuple(self.cleaned_data.get("judges") or ())
        if len(chosen) > MAX_NAMES:
            raise forms.ValidationError(f"at most {MAX_NAMES} judges")
        return chosen

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


class ReviewQueueForm(ReviewCampaignForm):
    """The queue choices of the new review campaign page alone, for its live item count; a
    choice left out takes the page's initial value."""

    def __init__(self, data: QueryDict, **kwargs: Any) -> None:
        data = data.copy()
        for name, field in self.base_fields.items():
            if name not in data and field.initial is not None:
                data[name] = str(field.initial)
        super().__init__(data, **kwargs)
        for name in ("name", "show_sources", "guidelines_md"):
            del self.fields[name]


def judge_choices(
    collection_pk: str, task_type: str, *, collections: QuerySet | None = None
) -> list[tuple[str, str]]:
    """(name, "name (kind)") of every judge with labels of ``task_type`` in the collection of
    ``collections`` (default: every one); none before a collection is chosen, or for an unknown
    one or task."""
    rows = Collection.objects.all() if collections is None else collections
    is_pk = collection_pk.isdecimal() and len(collection_pk) <= MAX_PK_DIGITS
    collection = rows.filter(pk=collection_pk).first() if is_pk else None
    if collection is None or task_type not in dict(task_type_choices()):
        return []
    kinds = collection_labels(collection, task_type).kinds
    return [(name, f"{name} ({kinds[name].replace('_', ' ')})") for name in sorted(kinds)]


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
