"""The form that starts a SePer job over a QA collection's topics."""

from __future__ import annotations

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Run
from crux_app.parameters import declared_form
from evaluation.seper.job import KIND
from evaluation.seper.params import SeperJobParams


class SeperJobForm(declared_form(SeperJobParams, CollectionJobForm)):
    """The run, then the fields declared in ``evaluation.seper.params``."""

    job_kind = KIND
    field_order = ["run"]

    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        required=False,
        empty_label="(no run: baseline and gold passages only)",
    )
