"""Starting a job from the API: the kind's registered page form validates its parameters. That
form is made from the job's declared parameters (``crux_app.parameters``, the method's
``params.py``), so the API, the page, the command and the job share one set of bounds, and
``job_params_schema`` describes them as JSON schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser
from django.http import QueryDict

from api.errors import FormRefused, field_error
from api.registry import JOB_FORMS, job_form
from crux_app.models import Collection, Job


def form_data(params: Mapping[str, Any]) -> QueryDict:
    """The params as a form's POST data: scalars as text, lists as repeated values."""
    data = QueryDict(mutable=True)
    for name, value in params.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, dict | list):
                raise field_error(f"params.{name}", "must be a scalar or a list of scalars")
            if item is None:
                continue
            data.appendlist(name, str(item).lower() if isinstance(item, bool) else str(item))
    return data


def start_api_job(
    kind: str, params: Mapping[str, Any], collection: Collection, user: AbstractBaseUser
) -> Job:
    """Validate ``params`` with ``kind``'s form and start the job (400 naming the field)."""
    entry = job_form(kind)
    if entry is None:
        startable = ", ".join(sorted(JOB_FORMS))
        raise field_error("kind", f"{kind!r} cannot be started here; kinds: {startable}")
    data = form_data(params)
    for name, value in entry.fixed.items():
        data[name] = value
    form = entry.form_class(data, collection=collection)
    if not form.is_valid():
        raise FormRefused({_param(name): errors for name, errors in form.errors.items()})
    return form.start(user)


def _param(name: str) -> str:
    return "params" if name == "__all__" else f"params.{name}"


def job_params_schema(kind: str) -> dict[str, Any] | None:
    """The JSON schema of the ``params`` a start of ``kind`` takes: the declared parameters its
    form shows, and the fields the form declares itself (a run, a topic); None for a kind that
    cannot be started here."""
    entry = job_form(kind)
    if entry is None:
        return None
    declared = getattr(entry.form_class, "parameters", None)
    declared_set = declared.declared() if declared is not None else None
    properties: dict[str, Any] = {}
    for name, field in entry.form_class.base_fields.items():
        if name in entry.fixed:
            continue
        if declared_set is not None and name in declared_set.parameters:
            properties[name] = declared_set[name].schema()
        else:
            properties[name] = _field_schema(field)
    required = [
        name
        for name, field in entry.form_class.base_fields.items()
        if field.required and name not in entry.fixed
    ]
    return {"type": "object", "properties": properties, "required": required}


def _field_schema(field: forms.Field) -> dict[str, Any]:
    """A field the form declares itself (a run, a topic): its value as text."""
    out: dict[str, Any] = {"type": "string"}
    if field.label:
        out["title"] = str(field.label)
    if field.help_text:
        out["description"] = str(field.help_text)
    return out
