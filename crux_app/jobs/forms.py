"""The shared base of the forms that start a job on one collection."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from crux_app.models import Collection, Job, Run, Topic
from crux_app.parameters import JobParameters, ParameterError

from .service import start_job


def collection_runs(collection: Collection) -> QuerySet[Run]:
    return Run.objects.filter(collection=collection).order_by("name")


class CollectionJobForm(forms.Form):
    """A form that starts one kind of job on one collection.

    A declared ``run`` field lists the collection's runs. Subclasses set ``job_kind``; a form
    made with ``declared_form`` has ``parameters`` (the job's declaration), from which its
    job's params are parsed (``declared_params``: the declaration's rules, the same parse as
    the command's, the API's and the job's). ``parameter_values`` adds what the form chooses
    itself (a run, a system); ``job_topic()`` narrows the job to one topic.
    """

    job_kind: str
    parameters: type[JobParameters]

    def __init__(self, *args: Any, collection: Collection, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.collection = collection
        if "run" in self.fields:
            self.fields["run"].queryset = collection_runs(collection)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors and getattr(self, "parameters", None) is not None:
            try:
                self.declared_params()
            except ParameterError as refused:  # a rule of the declaration, at its field
                field = "run" if refused.name == "run_id" else refused.name
                self.add_error(field if field in self.fields else None, str(refused))
            except ValueError as refused:
                self.add_error(None, str(refused))
        return data

    def job_run(self) -> Run | None:
        return self.cleaned_data.get("run")

    def parameter_values(self) -> dict[str, Any]:
        """The declared parameters' values as given (before the declaration's rules)."""
        values = self.parameters.declared().form_values(self.cleaned_data)
        if self.parameters.takes_run():
            run = self.job_run()
            values["run_id"] = run.pk if run is not None else None
        return values

    def declared_params(self) -> JobParameters:
        """The job's parsed parameters (ValueError: a rule of the declaration refuses them)."""
        return self.parameters.from_params(self.parameter_values())

    def job_params(self) -> dict[str, Any]:
        return self.declared_params().as_params(self.job_run())

    def job_topic(self) -> Topic | None:
        return None

    def start(self, user: AbstractBaseUser) -> Job:
        """Start the job (call after is_valid()); its task is sent once the row is committed."""
        return start_job(
            self.declared_params().started_kind(self.job_kind),
            self.job_params(),
            collection=self.collection,
            topic=self.job_topic(),
            user=user,
        )
