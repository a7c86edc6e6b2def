"""The selectors of the leaderboard and of the pages that read the same parameters: judge, tau,
k, qrels source, sort."""

from __future__ import annotations

from django import forms

from crux_app.inputs import JudgeInfo
from crux_app.judge_choice import default_rule
from evaluation.leaderboard.columns import K_ORACLE, LeaderboardParams
from evaluation.leaderboard.table import default_sort, sort_keys

TAUS = [(str(t), str(t)) for t in range(1, 6)]
ORDER = [("desc", "descending"), ("asc", "ascending")]
FORM_DEFAULTS = {"tau": "3", "k": "10"}
# The deepest cutoff a page evaluates: the metrics allocate topics x k arrays, so an unbounded
# k is an unbounded request (k = 10**9 asked for tens of GB).
MAX_K = 1000
SHOWN_CHARS = 40  # of a refused value, in its error message


def parse_k(value: str) -> int | str:
    """An integer from 1 to ``MAX_K`` (ASCII digits), or ``oracle`` (|O| per topic)."""
    value = (value or "").strip()
    if value == K_ORACLE:
        return value
    short_digits = value.isascii() and value.isdigit() and len(value) <= len(str(MAX_K))
    if short_digits and 1 <= int(value) <= MAX_K:
        return int(value)
    raise forms.ValidationError(
        f"k must be an integer from 1 to {MAX_K} or {K_ORACLE!r}, got {value[:SHOWN_CHARS]!r}"
    )


class TextModelChoiceField(forms.ModelChoiceField):
    """A model chosen by a text field (``to_field_name``, e.g. a run's name): a value
    PostgreSQL cannot compare (a NUL character) is an invalid choice, not a database error."""

    def to_python(self, value):
        if isinstance(value, str) and "\x00" in value:
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice"
            )
        return super().to_python(value)


class EvaluationForm(forms.Form):
    """GET parameters of an evaluation; every field has a default, so a bare URL works."""

    judge = forms.ChoiceField(required=False)
    tau = forms.TypedChoiceField(choices=TAUS, coerce=int, required=False, empty_value=3)
    k = forms.CharField(required=False, empty_value="10")
    qrels_source = forms.ChoiceField(required=False)
    missing_as_zero = forms.BooleanField(required=False)

    def __init__(
        self, data, *, judges: list[JudgeInfo], sources: list[tuple[str, int]], **kwargs
    ) -> None:
        super().__init__(data, **kwargs)
        self.fields["judge"].choices = [("", f"({default_rule()})")] + [
            (j.name, f"{j.name} ({j.kind_name}, {j.n_judgments})") for j in judges
        ]
        self.fields["qrels_source"].choices = [("", "default (most rows)")] + [
            (s, f"{s} ({n})") for s, n in sources
        ]

    def clean_k(self) -> int | str:
        return parse_k(self.cleaned_data.get("k") or "10")

    def params(self) -> LeaderboardParams:
        """The parameters every column reads (call after is_valid())."""
        data = self.cleaned_data
        return LeaderboardParams(
            judge=data.get("judge") or None,
            tau=float(data.get("tau") or 3),
            k=data["k"],
            qrels_source=data.get("qrels_source") or None,
            missing_as_zero=bool(data.get("missing_as_zero")),
        )


class LeaderboardForm(EvaluationForm):
    sort = forms.ChoiceField(choices=(), required=False)
    order = forms.ChoiceField(choices=ORDER, required=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Registered method columns join the sortable keys (read per form: apps register late).
        self.fields["sort"].choices = [(k, k) for k in sort_keys()]

    def sort_key(self) -> tuple[str, bool]:
        """(sort key, descending); the run name sorts ascending by default."""
        sort = self.cleaned_data.get("sort") or default_sort()
        order = self.cleaned_data.get("order") or ("asc" if sort == "run" else "desc")
        return sort, order == "desc"
