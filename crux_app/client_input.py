"""What a client or a file sends, checked once at the edge, by the same functions at every door
(the API's parsers, the pages' forms, JSON parsed by hand, the importers): text PostgreSQL can
store (no NUL, no lone UTF-16 surrogate) within a length, whole numbers of ASCII digits within
bounds, and JSON whose integer literals ``int`` can convert.

``str.isdigit`` accepts "²" and "٣", which ``int`` refuses, and ``int`` refuses more than 4,300
digits (``sys.get_int_max_str_digits``), inside ``json.loads`` too: neither is used on a
client's text except through ``whole_number`` and ``loads_json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

NUL_REASON = "holds a NUL character (\\u0000), which PostgreSQL text cannot store"
SURROGATE_REASON = "holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not valid text"
# Digits of a JSON integer literal: far past any id, count, offset or time a client sends, far
# short of the 4,300 digits past which int() raises ValueError inside json.loads.
MAX_JSON_INT_DIGITS = 100
MAX_BIGINT = 2**63 - 1  # primary keys and counters are bigint
SHOWN_CHARS = 40  # of a refused value, in a message


class InputRefused(ValueError):
    """A value a client sent that cannot be used; ``field`` names where it was (a form field,
    or a JSON path such as ``history[3].after[0].text``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def text_problem(text: str) -> str | None:
    """Why PostgreSQL cannot store ``text`` (a NUL, a lone surrogate); None when it can."""
    if "\x00" in text:
        return NUL_REASON
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return SURROGATE_REASON
    return None


def checked_text(field: str, value: str, max_chars: int | None = None) -> str:
    """``value`` when PostgreSQL can store it and it holds at most ``max_chars`` characters."""
    reason = text_problem(value)
    if reason is not None:
        raise InputRefused(field, reason)
    if max_chars is not None and len(value) > max_chars:
        raise InputRefused(field, f"is {len(value):,} characters long, at most {max_chars:,}")
    return value


@deconstructible
class StorableText:
    """A form field validator: ``checked_text`` as a ValidationError."""

    def __init__(self, max_chars: int | None = None) -> None:
        self.max_chars = max_chars

    def __call__(self, value: Any) -> None:
        if isinstance(value, str):
            try:
                checked_text("", value, self.max_chars)
            except InputRefused as error:
                raise ValidationError(f"This field {error.message}.", code="unstorable") from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StorableText) and other.max_chars == self.max_chars


def whole_number(field: str, text: str, low: int = 0, high: int = MAX_BIGINT) -> int:
    """The ASCII digits of ``text`` (surrounding space allowed) as an int in [low, high]."""
    digits = text.strip()
    # Bounded before int(): no 5,000-digit conversion, and no "²", which isdigit() accepts.
    fits = digits.isascii() and digits.isdigit() and len(digits) <= len(str(high))
    if not fits or not low <= int(digits) <= high:
        shown = digits[:SHOWN_CHARS] + ("..." if len(digits) > SHOWN_CHARS else "")
        raise InputRefused(field, f"must be a whole number from {low:,} to {high:,}, got {shown!r}")
    return int(digits)


def json_int(literal: str) -> int:
    """``json.loads``' ``parse_int``: a literal of at most ``MAX_JSON_INT_DIGITS`` digits."""
    digits = len(literal.lstrip("-"))
    if digits > MAX_JSON_INT_DIGITS:
        raise InputRefused(
            "", f"a JSON integer of {digits:,} digits (at most {MAX_JSON_INT_DIGITS})"
        )
    return int(literal)


def _refuse_constant(name: str) -> float:
    raise InputRefused("", f"{name} is not a JSON number")


def json_text_problem(value: Any, field: str = "") -> tuple[str, str] | None:
    """(path, reason) of the first string or key of a parsed JSON value that ``text_problem``
    refuses; None when every one is storable. Iterative: any depth is safe."""
    stack: list[tuple[Any, str]] = [(value, field)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            reason = text_problem(item)
            if reason is not None:
                return path or "body", reason
        elif isinstance(item, Mapping):
            for key, child in reversed(list(item.items())):
                name = f"{path}.{key}" if path else str(key)
                reason = text_problem(str(key))
                if reason is not None:
                    return (path or "body"), f"a key {reason}"
                stack.append((child, name))
        elif isinstance(item, list | tuple):
            stack.extend((child, f"{path}[{i}]") for i, child in reversed(list(enumerate(item))))
    return None


def loads_json(field: str, text: str) -> Any:
    """``json.loads`` of a client's text: malformed JSON, NaN and Infinity, an integer literal
    past ``MAX_JSON_INT_DIGITS``, a string PostgreSQL cannot store and nesting too deep for the
    parser are each an InputRefused naming ``field`` (and the JSON path inside it)."""
    try:
        data = json.loads(text, parse_int=json_int, parse_constant=_refuse_constant)
    except InputRefused as error:
        raise InputRefused(field, error.message) from None
    except json.JSONDecodeError as error:
        raise InputRefused(field, f"is not JSON ({error})") from None
    except RecursionError:
        raise InputRefused(field, "is JSON nested too deep") from None
    problem = json_text_problem(data, field)
    if problem is not None:
        raise InputRefused(*problem)
    return data
