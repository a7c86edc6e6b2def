"""The form that registers a webhook endpoint: every field bounded; a refused destination is a
field error."""

from __future__ import annotations

import secrets
from typing import Any

from django import forms
from django.core.validators import URLValidator

from crux_app.models import Collection

from .address_guard import RefusedDestination, check_destination
from .event_types import EVENT_CHOICES
from .models import MAX_SECRET_CHARS, MAX_URL_CHARS

MIN_SECRET_CHARS = 16


def _printable(value: str) -> None:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise forms.ValidationError("Control characters are not allowed.")


def new_secret() -> str:
    return secrets.token_urlsafe(32)


class EndpointForm(forms.Form):
    url = forms.URLField(
        label="URL",
        max_length=MAX_URL_CHARS,
        assume_scheme="https",
        validators=[URLValidator(schemes=["http", "https"]), _printable],
        help_text="http:// or https://; it must resolve to public addresses only.",
        widget=forms.URLInput(attrs={"size": 60}),
    )
    secret = forms.CharField(
        required=False,
        min_length=MIN_SECRET_CHARS,
        max_length=MAX_SECRET_CHARS,
        validators=[_printable],
        help_text=f"At least {MIN_SECRET_CHARS} characters; empty: a random one is made. It is "
        "shown once, after saving.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password", "size": 40}),
    )
    collection = forms.ModelChoiceField(
        queryset=Collection.objects.none(),  # those the account may see (``__init__``)
        required=False,
        empty_label="All collections",
        help_text="All collections: every one its maker may see when an event happens.",
    )
    events = forms.MultipleChoiceField(choices=EVENT_CHOICES, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args: Any, who: object, **kwargs: Any) -> None:
        """``who``: the account or request making the endpoint (its collections are offered)."""
        super().__init__(*args, **kwargs)
        self.fields["collection"].queryset = Collection.objects.visible_to(who).order_by("name")

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        try:
            check_destination(url)
        except RefusedDestination as exc:
            raise forms.ValidationError(str(exc)) from None
        return url

    def clean_secret(self) -> str:
        return self.cleaned_data.get("secret") or new_secret()


class ActiveForm(forms.Form):
    """Switch an endpoint on or off."""

    active = forms.TypedChoiceField(choices=[("1", "on"), ("0", "off")], coerce=lambda v: v == "1")
