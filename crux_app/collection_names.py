"""What a collection's name may be: 1-200 characters, not blank, no control characters.

Names travel into file names, download headers, page titles and log lines; a CR or LF in one
broke the judge report's ``Content-Disposition`` header. Every path that creates or renames a
collection (upload form, import commands, importers run by jobs, the admin) checks the name here.
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError

MAX_LENGTH = 200  # Collection.name's max_length
# Cc: C0/C1 controls (CR, LF, TAB, NUL, DEL, ...); Zl/Zp: Unicode line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def collection_name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a collection, or None when it can."""
    if not isinstance(name, str) or not name.strip():
        return "a collection name must not be empty"
    if len(name) > MAX_LENGTH:
        return f"a collection name has at most {MAX_LENGTH} characters (this one {len(name)})"
    for position, character in enumerate(name, start=1):
        if unicodedata.category(character) in _REFUSED_CATEGORIES:
            return (
                f"a collection name must not contain control characters "
                f"(U+{ord(character):04X} at character {position})"
            )
    return None


def validate_collection_name(name: object) -> None:
    """Django validator: ``ValidationError`` for a name ``collection_name_problem`` refuses."""
    problem = collection_name_problem(name)
    if problem is not None:
        raise ValidationError(problem[0].upper() + problem[1:] + ".", code="invalid")
