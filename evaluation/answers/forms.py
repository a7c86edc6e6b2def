"""The form that starts a ``generate_answers`` job on one collection."""

from __future__ import annotations

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Run
from crux_app.parameters import declared_form
from evaluation.answers.job import KIND
from evaluation.answers.params import AnswerJobParams


class GenerateAnswersForm(declared_form(AnswerJobParams, CollectionJobForm)):
    """The run, then the fields declared in ``evaluation.answers.params``."""

    job_kind = KIND
    field_order = ["run"]

    run = forms.ModelChoiceField(
        queryset=Run.objects.none(),
        required=False,
        empty_label="none (closed-book)",
        help_text="Context passages come from this run's top-k; none answers without context.",
    )
