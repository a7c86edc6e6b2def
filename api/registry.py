"""What methods add to the API, declared in their app's declaration (crux_app.method_config;
this package names no method): the form that validates each job kind's parameters, and method
endpoints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from django import forms

from crux_app.registry import Registry


@dataclass(frozen=True)
class JobForm:
    """The page form whose fields are a job kind's parameters (a ``CollectionJobForm``);
    ``fixed`` is form data the kind implies (e.g. the embedding judge's ``method``)."""

    kind: str
    form_class: type[forms.Form]
    fixed: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Endpoint:
    """A method's endpoint: ``route`` below ``/api/v1/`` (Django path syntax), a DRF view."""

    name: str
    route: str
    view: type


JOB_FORMS: Registry[JobForm] = Registry("API job form", (JobForm,), key=attrgetter("kind"))
ENDPOINTS: Registry[Endpoint] = Registry("API endpoint", (Endpoint,), key=attrgetter("name"))


def register_endpoint(name: str, route: str, view: type) -> None:
    """Mount a method's DRF view at ``/api/v1/<route>`` as URL name ``api-<name>``."""
    ENDPOINTS.register(Endpoint(name, route, view))


def job_form(kind: str) -> JobForm | None:
    return JOB_FORMS.get(kind)
