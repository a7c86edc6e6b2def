"""The shared base of the forms that start a job on one collection."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from crux_app.models import Collection, Job, Run, Topic

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
