"""Starting a job from the API: the kind's registered page form validates its parameters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
