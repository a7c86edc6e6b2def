"""What methods add to the API, declared in their app's declaration (crux_app.method_config;
this package names no method): each startable job kind (its declared parameters), method
endpoints, and which endpoint serves each method's stored results as rows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from django import forms

from crux_app.registry import Registry


@dataclass(frozen=True)
class JobForm:
    """A startable job kind: its page form (a ``CollectionJobForm`` made from the job's
    declared parameters, ``form_class.parameters``, which the API parses JSON with: never the
    form); ``fixed`` are parameter values the kind implies (e.g. the embedding judge's
    ``method``); ``takes_topic``: a start may narrow the job to one topic."""

    kind: str
    form_class: type[forms.Form]
    fixed: Mapping[str, Any] = field(default_factory=dict)
    takes_topic: bool = False

    @property
    def parameters(self) -> Any:
        """The job's declaration (a ``crux_app.parameters.JobParameters`` subclass)."""
        return self.form_class.parameters


@dataclass(frozen=True)
class Endpoint:
    """A method's endpoint: ``route`` below ``/api/v1/`` (Django path syntax), a DRF view."""

    name: str
    route: str
    view: type


@dataclass(frozen=True)
class ResultTable:
    """A method's stored results as rows (``Client.results``): ``endpoint`` the URL name that
    serves them (``api-<name>``, its route taking the collection as ``name``), ``filters`` its
    query parameters, ``rows`` the JSON key holding the rows ("results": pages of them)."""

    method: str
    endpoint: str
    filters: tuple[str, ...] = ()
    rows: str = "results"


JOB_FORMS: Registry[JobForm] = Registry("API job form", (JobForm,), key=attrgetter("kind"))
ENDPOINTS: Registry[Endpoint] = Registry("API endpoint", (Endpoint,), key=attrgetter("name"))
RESULT_TABLES: Registry[ResultTable] = Registry(
    "API result table", (ResultTable,), key=attrgetter("method")
)


def register_endpoint(name: str, route: str, view: type) -> None:
    """Mount a method's DRF view at ``/api/v1/<route>`` as URL name ``api-<name>``."""
    ENDPOINTS.register(Endpoint(name, route, view))


def job_form(kind: str) -> JobForm | None:
    return JOB_FORMS.get(kind)
