"""Forms of the LLM-retEval pages: start a job, filter the results, create a failure campaign."""

from __future__ import annotations

from typing import Any

from django import forms

from crux_app.jobs.forms import CollectionJobForm, collection_runs
from crux_app.models import Collection, Run
from evaluation.leaderboard.forms import TextModelChoiceField
from evaluation.reteval.job import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_KS,
    DEFAULT_MAX_NEW_TOKENS,
    DEFAULT_SEMI_GOLD,
    DEFAULT_TEMPERATURE,
    KIND,
    RetEvalJobParams,
)

MAX_K = 100
MAX_SEED = 2**32 - 1
MAX_QUESTIONS = 1_000_000


class KListField(forms.CharField):
    """Cutoffs as "1 5 10" (spaces or commas), each an integer 1-100."""

    def to_python(self, value: str | None) -> list[int]:
        text = super().to_python(value) or ""
        parts = text.replace(",", " ").split()
        if not parts:
            raise forms.ValidationError("give at least one k, e.g. 1 5 10")
        ks = []
        for part in parts:
            digits = part.isascii() and part.isdigit() and len(part) <= len(str(MAX_K))
            if not digits or not 1 <= int(part) <= MAX_K:
                raise forms.ValidationError(
                    f"'{part[:20]}' is not an integer k between 1 and {MAX_K}"
                )
            ks.append(int(part))
        return sorted(set(ks))


class RetEvalJobForm(CollectionJobForm):
    job_kind = KIND

    run = forms.ModelChoiceField(queryset=Run.objects.none())
    ks = KListField(
        label="k (top-k cutoffs)", initial=" ".join(map(str, DEFAULT_KS)), max_length=100
    )
    n_semi_gold = forms.IntegerField(
        min_value=1, max_value=10, initial=DEFAULT_SEMI_GOLD, label="Semi-gold samples"
    )
    temperature = forms.FloatField(
        min_value=0.01, max_value=2.0, initial=DEFAULT_TEMPERATURE, label="Semi-gold temperature"
    )
    seed = forms.IntegerField(min_value=0, max_value=MAX_SEED, initial=0)
    max_new_tokens = forms.IntegerField(min_value=1, max_value=128, initial=DEFAULT_MAX_NEW_TOKENS)
    max_questions = forms.IntegerField(
        min_value=1,
        max_value=MAX_QUESTIONS,
        required=False,
        help_text="empty: every question with gold passages",
    )

    def params(self) -> RetEvalJobParams:
        data = self.cleaned_data
        return RetEvalJobParams(
            run_id=data["run"].pk,
            ks=tuple(data["ks"]),
            n_semi_gold=data["n_semi_gold"],
            temperature=data["temperature"],
            seed=data["seed"],
            max_new_tokens=data["max_new_tokens"],
            batch_size=DEFAULT_BATCH_SIZE,
            max_questions=data.get("max_questions"),
        )

    def job_params(self) -> dict[str, Any]:
        return self.params().as_params(self.cleaned_data["run"])


class RetEvalFilterForm(forms.Form):
    """GET filters of the results page; an empty field means every value."""

    run = TextModelChoiceField(queryset=Run.objects.none(), required=False, to_field_name="name")
    k = forms.IntegerField(min_value=1, max_value=MAX_K, required=False)
    judge = forms.ChoiceField(required=False)

    def __init__(self, *args, collection: Collection, judges: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = collection_runs(collection)
        self.fields["judge"].choices = [("", "(most results)")] + [(j, j) for j in judges]


class FailureCampaignForm(forms.Form):
    run = forms.ModelChoiceField(queryset=Run.objects.none())
    k = forms.IntegerField(min_value=1, max_value=MAX_K)
    judge = forms.CharField(max_length=300)
    overlap = forms.IntegerField(min_value=1, max_value=10, initial=2, label="Annotators per item")
    name = forms.CharField(max_length=200, required=False, help_text="empty: a generated name")

    def __init__(self, *args, collection: Collection, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = collection_runs(collection)
