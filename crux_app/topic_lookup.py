"""Choosing one topic of a collection by typing its id, instead of a dropdown of every topic.

A form field (``TopicField``) takes the topic's id as text; its input asks the server, as the
researcher types, for at most ``MAX_MATCHES`` topics whose id or request contains the text
(``topic_matches``, served by the collection's topic search view) and offers them in a
datalist. A page of a 10,000-topic collection then renders one input, not 10,000 options.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import Case, IntegerField, Q, QuerySet, Value, When
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from crux_app.models import Collection, Topic

MAX_MATCHES = 20
MAX_TOPIC_CHARS = 200


def _no_control_characters(value: str) -> None:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise forms.ValidationError("A topic id may not contain control characters.")


def topic_matches(collection: Collection, text: str, limit: int = MAX_MATCHES) -> list[Topic]:
    """At most ``limit`` topics of the collection whose id or request contains ``text`` (any
    case): an exact id first, then ids that start with it, then by id."""
    text = text.strip()
    topics = Topic.objects.filter(collection=collection)
    if text:
        topics = topics.filter(Q(external_id__icontains=text) | Q(request__icontains=text))
    rank = Case(
        When(external_id__iexact=text, then=Value(0)),
        When(external_id__istartswith=text, then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )
    ranked: QuerySet = topics.annotate(match_rank=rank).order_by("match_rank", "external_id")
    return list(ranked.only("pk", "external_id", "request")[:limit])


class TopicLookupForm(forms.Form):
    """The topic search's query: the text typed so far (may be empty: the first topics)."""

    topic = forms.CharField(
        required=False, max_length=MAX_TOPIC_CHARS, validators=[_no_control_characters]
    )


class TopicSearchInput(forms.TextInput):
    """A text input that fills its datalist with the server's matches as the researcher types
    (htmx; the page needs no script of its own)."""

    def __init__(self, search_url: str = "", attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.search_url = search_url

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        widget_attrs = context["widget"]["attrs"]
        list_id = f"{widget_attrs.get('id') or name}-matches"
        widget_attrs.update(
            {
                "list": list_id,
                "autocomplete": "off",
                "placeholder": "type a topic id or words of its request",
                "hx-get": self.search_url,
                "hx-trigger": "input changed delay:250ms, focus once",
                "hx-target": f"#{list_id}",
                "hx-swap": "innerHTML",
                # Set here, not inherited from an enclosing element's requests.
                "hx-sync": "this:replace",
                "hx-include": "this",
                "hx-params": name,
            }
        )
        return context

    def render(self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer=None):
        html = super().render(name, value, attrs, renderer)
        list_id = f"{(attrs or {}).get('id') or self.attrs.get('id') or name}-matches"
        return format_html('{}<datalist id="{}"></datalist>', SafeString(html), list_id)


class TopicField(forms.ModelChoiceField):
    """One topic of a collection, given by its id (``external_id``) as text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("queryset", Topic.objects.none())
        kwargs.setdefault("widget", TopicSearchInput())
        kwargs.setdefault("empty_label", None)
        super().__init__(*args, to_field_name="external_id", **kwargs)
        self.error_messages["invalid_choice"] = "No topic with this id in the collection."

    def for_collection(self, collection: Collection) -> None:
        """Look topics up in ``collection`` (call from the form's ``__init__``)."""
        self.queryset = Topic.objects.filter(collection=collection)
        self.widget.search_url = reverse("topic-search", args=[collection.pk])

    def to_python(self, value: Any) -> Topic | None:
        if isinstance(value, str):
            value = value.strip()
            if len(value) > MAX_TOPIC_CHARS or any(ord(ch) < 32 for ch in value):
                raise forms.ValidationError(self.error_messages["invalid_choice"], "invalid_choice")
        return super().to_python(value)
