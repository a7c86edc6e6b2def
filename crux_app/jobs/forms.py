"""Forms that start jobs: the shared base of the collection start pages, and the Jobs page's."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from crux_app.models import Collection, Job, Run, Topic
from evaluation.answer_job import KIND as GENERATE_ANSWERS
from evaluation.answer_job import AnswerJobParams
from evaluation.generation import DEFAULT_K

from .service import start_job


def collection_runs(collection: Collection) -> QuerySet[Run]:
    return Run.objects.filter(collection=collection).order_by("name")


class CollectionJobForm(forms.Form):
    """A form that starts one kind of job on one collection.

    A declared ``run`` field lists the collection's runs. Subclasses set ``job_kind`` and give
    the job's JSON params in ``job_params()``; ``job_topic()`` narrows the job to one topic.
    """

    job_kind: str

    def __init__(self, *args: Any, collection: Collection, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.collection = collection
        if "run" in self.fields:
            self.fields["run"].queryset = collection_runs(collection)

    def job_params(self) -> dict[str, Any]:
        raise NotImplementedError

    def job_topic(self) -> Topic | None:
        return None

    def start(self, user: AbstractBaseUser) -> Job:
        """Start the job (call after is_valid()); its task is sent once the row is committed."""
        return start_job(
            self.job_kind,
            self.job_params(),
            collection=self.collection,
            topic=self.job_topic(),
            user=user,
        )


class RunChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Run) -> str:
        return f"{obj.collection.name} / {obj.name}"


class GenerateAnswersForm(forms.Form):
    collection = forms.ModelChoiceField(queryset=Collection.objects.order_by("name"))
    run = RunChoiceField(
        queryset=Run.objects.select_related("collection").order_by("collection__name", "name"),
        required=False,
        empty_label="none (closed-book)",
        help_text="Context passages come from this run's top-k; none answers without context.",
    )
    k = forms.IntegerField(min_value=1, max_value=100, initial=DEFAULT_K, label="Top k")

    def clean(self) -> dict:
        data = super().clean()
        run, collection = data.get("run"), data.get("collection")
        if run is not None and collection is not None and run.collection_id != collection.pk:
            self.add_error("run", f"run {run.name!r} belongs to collection {run.collection.name!r}")
        return data

    def start(self, user: AbstractBaseUser) -> Job:
        run = self.cleaned_data["run"]
        config = AnswerJobParams(run_id=run.pk if run else None, k=self.cleaned_data["k"])
        return start_job(
            GENERATE_ANSWERS,
            config.as_params(run),
            collection=self.cleaned_data["collection"],
            user=user,
        )
