"""Forms of the coverage-matrix page: the matrix selectors and the expert rubric rating."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms

from crux_app.models import Passage, SubQuestion, Topic
from crux_app.read_parameters import K, whole_taus
from crux_app.vocabulary import RUBRIC_LEVELS
from evaluation.crux.matrix.matrix import (
    DEFAULT_K,
    DEFAULT_TAU,
    MAX_K,
    JudgeChoice,
    MatrixOptions,
    RunChoice,
)
from evaluation.crux.method.judge_prompts import RUBRIC_GUIDELINE

# A panel left open overnight still saves; the stored time is capped instead of refused.
MAX_TIME_SPENT_MS = 24 * 3600 * 1000
MAX_RATIONALE_CHARS = 5000
MAX_ID = 2**63 - 1  # primary keys are bigint
MAX_TIME_SENT_MS = 10**12  # what the form accepts before capping (a browser sends far less)
# What the cells' colour shows: the rating, or the expected rating of a judge's distributions.
RATING, EXPECTED = "rating", "expected"
COLOUR_CHOICES = [(RATING, "rating"), (EXPECTED, "expected rating (distribution)")]
# Selectors whose invalid value is refused (400) instead of falling back to the default.
REFUSED = ("colour",)
TAUS = whole_taus()  # the declared tau's whole numbers: the matrix colours whole ratings


@dataclass(frozen=True)
class MatrixSelection:
    judge: JudgeChoice | None
    run: RunChoice | None
    tau: int
    k: int
    colour: str = RATING


class MatrixSelectionForm(forms.Form):
    """GET selectors; a missing or invalid value falls back to its default (and says so),
    except ``colour``: an unknown one is refused (``refused``)."""

    judge = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)
    run = forms.TypedChoiceField(coerce=int, required=False, empty_value=None)
    # The declared tau's whole values and the declared k's bounds (crux_app.read_parameters).
    tau = forms.TypedChoiceField(coerce=int, required=False, empty_value=None, choices=TAUS)
    k = forms.IntegerField(required=False, min_value=K.minimum, max_value=MAX_K)
    colour = forms.ChoiceField(required=False, choices=COLOUR_CHOICES)

    def __init__(
        self,
        *args: Any,
        options: MatrixOptions,
        preferred: Sequence[int | None] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.options = options
        # The judges shown without a valid ``judge``, the first that rated the topic.
        self.preferred = preferred
        self.fields["judge"].choices = [
            (j.id, f"{j.name} ({j.kind_name}, {j.n_judgments})") for j in options.judges
        ]
        self.fields["run"].choices = [(r.id, r.name) for r in options.runs]

    def selection(self) -> MatrixSelection:
        """The chosen values, defaults where a value is missing or invalid."""
        data = self.cleaned_data if self.is_valid() else _valid_part(self)
        judge = self.options.judge(data.get("judge")) or self.options.preferred_judge(
            self.preferred
        )
        run = self.options.run(data.get("run")) or self.options.default_run
        return MatrixSelection(
            judge=judge,
            run=run,
            tau=data.get("tau") or DEFAULT_TAU,
            k=data.get("k") or DEFAULT_K,
            colour=data.get("colour") or RATING,
        )

    def chosen_judge(self) -> int | None:
        """The judge the request names, when it is valid and rated the topic (else None)."""
        data = self.cleaned_data if self.is_valid() else _valid_part(self)
        judge = self.options.judge(data.get("judge"))
        return judge.id if judge else None

    def refused(self) -> bool:
        """Whether a selector that does not fall back has an invalid value."""
        return not self.is_valid() and any(name in self.errors for name in REFUSED)


def _valid_part(form: forms.Form) -> dict[str, Any]:
    return {name: value for name, value in form.cleaned_data.items() if name not in form.errors}


class CellQueryForm(forms.Form):
    """GET parameters of the cell panel: the cell's ids, and the tau and judge of the matrix
    it was opened from (optional; an invalid one falls back like the matrix selectors)."""

    sq = forms.IntegerField(min_value=1, max_value=MAX_ID)
    passage = forms.IntegerField(min_value=1, max_value=MAX_ID)
    tau = forms.TypedChoiceField(coerce=int, required=False, empty_value=None, choices=TAUS)
    judge = forms.IntegerField(required=False, min_value=1, max_value=MAX_ID)

    def context(self) -> tuple[int, int | None]:
        """(tau, selected judge id) for the panel, defaults where missing or invalid."""
        self.is_valid()
        data = _valid_part(self)
        return data.get("tau") or DEFAULT_TAU, data.get("judge")


RATING_CHOICES = [(level.rating, str(level.rating)) for level in RUBRIC_LEVELS]  # 5 first


class RubricRatingForm(forms.Form):
    """A researcher's own 0-5 rating of a (sub-question, passage) cell, with the CRUX rubric."""

    guideline = RUBRIC_GUIDELINE

    subquestion = forms.ModelChoiceField(
        queryset=SubQuestion.objects.none(),
        label="Sub-question",
        widget=forms.HiddenInput,
        error_messages={"invalid_choice": "Unknown sub-question for this topic."},
    )
    passage = forms.ModelChoiceField(
        queryset=Passage.objects.none(),
        label="Passage",
        widget=forms.HiddenInput,
        error_messages={"invalid_choice": "Unknown passage for this collection."},
    )
    rating = forms.TypedChoiceField(
        choices=RATING_CHOICES,
        coerce=int,
        widget=forms.RadioSelect,
        error_messages={
            "required": "Choose a rating from 0 to 5.",
            "invalid_choice": "The rating must be a whole number from 0 to 5.",
        },
    )
    rationale = forms.CharField(
        required=False,
        max_length=MAX_RATIONALE_CHARS,
        strip=False,
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "Select text in the passage, or type"}
        ),
    )
    rationale_start = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_ID, widget=forms.HiddenInput
    )
    rationale_end = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_ID, widget=forms.HiddenInput
    )
    time_spent_ms = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_TIME_SENT_MS, widget=forms.HiddenInput
    )

    def __init__(self, *args: Any, topic: Topic, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["subquestion"].queryset = SubQuestion.objects.filter(
            topic=topic, is_placeholder=False
        )
        self.fields["passage"].queryset = Passage.objects.filter(collection_id=topic.collection_id)

    def clean_time_spent_ms(self) -> int | None:
        value = self.cleaned_data.get("time_spent_ms")
        return None if value is None else min(value, MAX_TIME_SPENT_MS)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        start, end = data.get("rationale_start"), data.get("rationale_end")
        if (start is None) != (end is None):
            self.add_error("rationale", "A rationale span needs both a start and an end offset.")
        elif start is not None and end is not None:
            self._check_span(data, start, end)
            return data  # kept verbatim: the offsets point at exactly this text
        data["rationale"] = (data.get("rationale") or "").strip()
        return data

    def _check_span(self, data: dict[str, Any], start: int, end: int) -> None:
        """The offsets must select exactly the rationale text inside the passage."""
        passage = data.get("passage")
        if passage is None:
            return  # the passage error is reported on its own field
        if not start < end <= len(passage.text):
            self.add_error(
                "rationale",
                f"The selected span {start}-{end} lies outside the passage "
                f"({len(passage.text)} characters).",
            )
        elif passage.text[start:end] != data.get("rationale", ""):
            self.add_error("rationale", "The rationale differs from the selected passage text.")
