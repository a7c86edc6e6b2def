"""The nugget pages' forms: the "where lost" filters (judges, the declared k and tau) and the
judging job's start form (its declared parameters, ``params.py``)."""

from __future__ import annotations

from django import forms

from crux_app.jobs.forms import CollectionJobForm
from crux_app.models import Judge
from crux_app.parameters import declared_form
from evaluation.nuggets.params import LossParams, NuggetJobParams

KIND = "nuggets"  # evaluation.nuggets.job.KIND (not imported: the page need not load the job)


class LossFilterForm(declared_form(LossParams)):
    """An empty judge means the judge with the most labels."""

    judge = forms.ChoiceField(required=False, label="Assignment judge")
    support_judge = forms.ChoiceField(required=False, label="Support judge")
    sentence_judge = forms.ChoiceField(required=False, label="Sentence support judge")

    def __init__(
        self,
        *args,
        judges: list[Judge],
        support_judges: list[Judge],
        sentence_judges: list[Judge],
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["judge"].choices = [("", "(most assignments)")] + [
            (j.name, j.name) for j in judges
        ]
        self.fields["support_judge"].choices = [("", "(most ratings)")] + [
            (j.name, j.name) for j in support_judges
        ]
        self.fields["sentence_judge"].choices = [("", "(most grades)")] + [
            (j.name, j.name) for j in sentence_judges
        ]

    def params(self) -> LossParams:
        return LossParams(**LossParams.declared().form_values(self.cleaned_data))


class NuggetJobForm(declared_form(NuggetJobParams, CollectionJobForm)):
    """Start a nugget judging job: the fields declared in ``params.py``."""

    job_kind = KIND
