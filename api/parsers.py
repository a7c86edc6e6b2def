"""The API's body parsers: every field a client sends is checked here, once, by
``crux_app.client_input`` before any view reads it. A JSON string or a form field PostgreSQL
cannot store (a NUL, a lone surrogate), a JSON integer literal past ``MAX_JSON_INT_DIGITS``,
NaN and a body nested too deep are each a 400 naming the field."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import QueryDict
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, FormParser, JSONParser, MultiPartParser

from api.errors import field_error
from crux_app.client_input import InputRefused, loads_json, text_problem


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        encoding = (parser_context or {}).get("encoding", "utf-8") or "utf-8"
        try:
            text = codecs.getreader(encoding)(stream).read()
        except ValueError as error:  # undecodable bytes
            raise ParseError(f"JSON parse error - {error}") from None
        try:
            return loads_json("", text)
        except InputRefused as error:
            if error.field:
                raise field_error(error.field, error.message) from None
            raise ParseError(f"JSON parse error - {error.message}") from None


def _checked_fields(data: QueryDict) -> QueryDict:
    """Form fields: names and values PostgreSQL can store."""
    for key, values in data.lists():
        name = key.encode("utf-8", "backslashreplace").decode("utf-8")
        reason = text_problem(key) or next(filter(None, map(text_problem, values)), None)
        if reason is not None:
            raise field_error(name.replace("\x00", "\\x00")[:100], reason)
    return data


@contextmanager
def _form_limits() -> Iterator[None]:
    """Django's refusals of a form over its limits (which it answers with an HTML 400) as a
    JSON 400 naming the limit."""
    try:
        yield
    except TooManyFieldsSent:
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        raise ParseError(
            f"the form has more than {limit:,} fields (DATA_UPLOAD_MAX_NUMBER_FIELDS)"
        ) from None
    except TooManyFilesSent:
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        raise ParseError(
            f"the form has more than {limit:,} files (DATA_UPLOAD_MAX_NUMBER_FILES)"
        ) from None
    except RequestDataTooBig:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raise ParseError(
            f"the form's fields (files aside) hold more than {limit:,} bytes "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE)"
        ) from None


class SafeFormParser(FormParser):
    def parse(self, stream, media_type=None, parser_context=None) -> QueryDict:
        with _form_limits():
            return _checked_fields(super().parse(stream, media_type, parser_context))


class SafeMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None) -> DataAndFiles:
        with _form_limits():
            parsed = super().parse(stream, media_type, parser_context)
        _checked_fields(parsed.data)
        return parsed
