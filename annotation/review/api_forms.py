"""What the review endpoints accept, validated by the review pages' own forms
(``annotation/review/forms.py``: the same fields, bounds and choices): a new review campaign,
the queue preview's choices and a decision. Judges, topics and reviewers come as lists, since
judge names may hold spaces (``SePer kernel (deberta)``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.http import QueryDict
from django.utils.choices import CallableChoiceIterator

from annotation.review.forms import MAX_NAMES, DecisionForm, ReviewCampaignForm
from api.errors import field_error
from crux_app.client_input import text_problem

NAME_CHARS = 300
MAX_REVIEWERS = 1000
# The new campaign form's fields that make a queue (the preview takes these only).
QUEUE_FIELDS = ("task_type", "kind", "judges", "topics", "min_gap", "sampling", "sample", "seed")


class NameListField(forms.Field):
    """A list of names (a JSON list, or a repeated form or query parameter)."""

    widget = forms.MultipleHiddenInput

    def __init__(self, *, max_names: int = MAX_NAMES, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)
        self.max_names = max_names

    def to_python(self, value: Any) -> tuple[str, ...]:
        values = [] if value in (None, "") else value
        if isinstance(values, str) or not isinstance(values, Iterable):
            values = [values]
        names = []
        for name in values:
            if not isinstance(name, str) or not name.strip():
                raise forms.ValidationError("each name must be a non-empty string")
            if len(name) > NAME_CHARS or text_problem(name):
                raise forms.ValidationError(f"a name is at most {NAME_CHARS} printable characters")
            names.append(name.strip())
        if len(names) > self.max_names:
            raise forms.ValidationError(f"at most {self.max_names} names")
        return tuple(dict.fromkeys(names))


class ReviewCampaignApiForm(ReviewCampaignForm):
    """The new review campaign page's form; judges and topics as lists, and the accounts given
    the campaign (``reviewers``)."""

    judges = NameListField(help_text="Judge names. Empty: every person who labelled.")
    topics = NameListField(help_text="Topic ids to keep.")
    reviewers = NameListField(max_names=MAX_REVIEWERS, help_text="Account names to review.")

    def __init__(self, data: QueryDict, **kwargs: Any) -> None:
        # Left out, a choice takes the page's initial value (the command's default).
        data = data.copy()
        for name, field in self.base_fields.items():
            if name not in data and field.initial is not None:
                data[name] = str(field.initial)
        super().__init__(data, **kwargs)

    def clean_judges(self) -> tuple[str, ...]:
        return self.cleaned_data["judges"]

    def clean_topics(self) -> tuple[str, ...]:
        return self.cleaned_data["topics"]


class ReviewQueueApiForm(ReviewCampaignApiForm):
    """The queue choices of a new review campaign, alone (``review_queue``'s arguments)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in list(self.fields):
            if name not in QUEUE_FIELDS:
                del self.fields[name]


def body_data(data: Any) -> QueryDict:
    """A request body or query as form data: a form post as it is, a JSON object's scalars
    and lists of scalars as repeated values (a 400 naming the field for anything else)."""
    if hasattr(data, "getlist"):
        return data.copy()
    if not isinstance(data, dict):
        raise field_error("__all__", "the body must be an object of the form's fields")
    out = QueryDict(mutable=True)
    for name, value in data.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict | list):
                raise field_error(str(name)[:100], "must be a scalar or a list of scalars")
            if item is not None:
                out.appendlist(name, str(item).lower() if isinstance(item, bool) else str(item))
    return out


def form_schema(form_class: type[forms.Form], fields: Iterable[str]) -> dict:
    """A form's fields as a JSON schema for the API's documentation (bounds from the form,
    so the schema and the validation cannot disagree)."""
    properties = {}
    for name, field in form_class.base_fields.items():
        if name not in fields:
            continue
        properties[name] = _field_schema(field)
    fields_of = form_class.base_fields
    required = [n for n in properties if fields_of[n].required and fields_of[n].initial is None]
    return {"type": "object", "properties": properties, "required": required}


def _field_schema(field: forms.Field) -> dict:
    if isinstance(field, NameListField):
        out: dict[str, Any] = {
            "type": "array",
            "items": {"type": "string", "maxLength": NAME_CHARS},
            "maxItems": field.max_names,
        }
    elif isinstance(field, forms.BooleanField):
        out = {"type": "boolean"}
    elif isinstance(field, forms.IntegerField):  # FloatField is one too
        out = {"type": "number" if isinstance(field, forms.FloatField) else "integer"}
        for validator in field.validators:
            if isinstance(validator, MinValueValidator):
                out["minimum"] = validator.limit_value
            elif isinstance(validator, MaxValueValidator):
                out["maximum"] = validator.limit_value
    elif isinstance(field, forms.ModelChoiceField):
        out = {"type": "string"}
    elif isinstance(field, forms.ChoiceField) and not isinstance(
        field.choices, CallableChoiceIterator
    ):
        # Fixed choices only: declared ones (task types) grow as methods declare them.
        out = {"type": "string", "enum": [str(key) for key, _ in field.choices]}
    else:
        out = {"type": "string"}
        if getattr(field, "max_length", None):
            out["maxLength"] = field.max_length
    if field.initial is not None:
        out["default"] = field.initial
    if field.help_text:
        out["description"] = str(field.help_text)
    return out


CAMPAIGN_FIELDS = (
    "name", *QUEUE_FIELDS, "show_sources", "guidelines_md", "reviewers",
)  # fmt: skip
CAMPAIGN_SCHEMA = form_schema(ReviewCampaignApiForm, CAMPAIGN_FIELDS)
DECISION_SCHEMA = form_schema(DecisionForm, DecisionForm.base_fields)
