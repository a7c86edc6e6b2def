"""What a submit of the workspace (its page and its API) may send besides the answer."""

from __future__ import annotations

from django import forms

# What a submit may report before ``submit`` caps it at a day: a browser sends far less.
MAX_TIME_SENT_MS = 10**12


class SubmitTiming(forms.Form):
    """The browser's measure of time on the item; empty: the time since the reservation."""

    time_spent_ms = forms.IntegerField(required=False, min_value=0, max_value=MAX_TIME_SENT_MS)
