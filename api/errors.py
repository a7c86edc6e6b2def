"""Error bodies: ``{"detail": ..., "errors": {field: [messages]}}``, always JSON."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.forms.utils import ErrorDict
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

NON_FIELD = "__all__"


class FormRefused(exceptions.ValidationError):
    """A Django form's errors, keyed by field (``__all__`` for the whole form)."""

    def __init__(self, errors: ErrorDict | dict[str, list[str]]) -> None:
        super().__init__({name: [str(m) for m in messages] for name, messages in errors.items()})


def field_error(field: str, message: str) -> exceptions.ValidationError:
    return exceptions.ValidationError({field: [message]})


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with validation errors under ``errors`` beside a one-line ``detail``
    that names the first field."""
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {NON_FIELD: exc.messages}
        )
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.ValidationError):
        return response
    data = response.data
    errors = data if isinstance(data, dict) else {NON_FIELD: data}
    first_field, first = next(iter(errors.items()), (NON_FIELD, ["invalid input"]))
    message = first[0] if isinstance(first, list) and first else first
    where = "" if first_field == NON_FIELD else f"{first_field}: "
    response.data = {"detail": f"{where}{message}", "errors": errors}
    return response
