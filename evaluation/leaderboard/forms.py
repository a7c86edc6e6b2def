"""The selectors of the leaderboard and of the pages that read the same parameters: judge, tau,
k, qrels source, sort."""

from __future__ import annotations

from django import forms

from crux_app import read_parameters
from crux_app.client_input import text_problem
from crux_app.inputs import JudgeInfo
from crux_app.judge_choice import default_rule
from crux_app.read_parameters import (
    JUDGE,
    TAU,
    K,
    k_or_oracle_schema,
    whole_tau_schema,
    whole_taus,
)
from evaluation.leaderboard.columns import LeaderboardParams
from evaluation.leaderboard.table import default_sort, sort_keys

TAUS = whole_taus()  # the declared tau's whole numbers (crux_app.read_parameters)
ORDER = [("desc", "descending"), ("asc", "ascending")]
FORM_DEFAULTS = {"tau": f"{TAU.default:g}", "k": str(K.default)}  # the declared defaults
MAX_K = K.maximum  # the declared k's bound (crux_app.read_parameters)
# The API's description of these selectors: whole taus, and k or 'oracle'.
EVALUATION_SCHEMAS = {"tau": whole_tau_schema(), "k": k_or_oracle_schema()}


def parse_k(value: str) -> int | str:
    """The declared k (ASCII digits within its bounds), or ``oracle`` (|O| per topic)."""
    try:
        return read_parameters.parse_k(value)
    except ValueError as refused:
        raise forms.ValidationError(str(refused)) from None


class TextModelChoiceField(forms.ModelChoiceField):
    """A model chosen by a text field (``to_field_name``, e.g. a run's name): a value
    PostgreSQL cannot compare (a NUL character) is an invalid choice, not a database error."""

    def to_python(self, value):
        if isinstance(value, str) and text_problem(value):
            raise forms.ValidationError(
                self.error_messages["invalid_choice"], code="invalid_choice"
            )
        return super().to_python(value)


class EvaluationForm(forms.Form):
    """GET parameters of an evaluation; every field has a default, so a bare URL works."""

    # The declared judge, tau and k (crux_app.read_parameters); blank: their defaults.
    judge = forms.ChoiceField(required=False, help_text=JUDGE.help)
    tau = forms.TypedChoiceField(
        choices=TAUS, coerce=float, required=False, empty_value=TAU.default, help_text=TAU.help
    )
    k = forms.CharField(required=False, empty_value=str(K.default), help_text=K.help)
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
        return parse_k(self.cleaned_data.get("k") or str(K.default))

    def params(self) -> LeaderboardParams:
        """The parameters every column reads (call after is_valid())."""
        data = self.cleaned_data
        return LeaderboardParams(
            judge=data.get("judge") or None,
            tau=float(data.get("tau") or TAU.default),
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
