"""Line readers for JSONL, whitespace-column (TREC) and TSV files, with typed field access.

Every reader yields records that know their file label and line number, so a format module
can reject a value with ``record.fail("reason")`` and the message names the exact place.
Text PostgreSQL cannot store (a NUL character, a lone UTF-16 surrogate) and JSON nested deeper
than ``MAX_JSON_DEPTH`` are refused at the line that holds them.
"""

import json
import os
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from crux_app.client_input import NUL_REASON, InputRefused, json_int, text_problem

from .errors import ImportFailure

# CRUX's files nest three levels at most; a deeper document is refused before anything walks it
# recursively (json itself gives up near Python's recursion limit with a RecursionError).
MAX_JSON_DEPTH = 64
DEPTH_REASON = f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
# Escapes that may decode to text PostgreSQL refuses; only lines holding one are walked.
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_STRUCTURE = re.compile(r'[\\"\[\]{}]')

_JSON_TYPE_NAMES = {
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


def json_type_name(value: Any) -> str:
    """How JSON would call the type of ``value`` ("a string", "a list", ...)."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _matches(value: Any, types: tuple[type, ...]) -> bool:
    # bool is an int subclass in Python, but true/false is never a valid count or rating.
    if isinstance(value, bool) and bool not in types:
        return False
    return isinstance(value, types)


@dataclass(frozen=True)
class Record:
    """One JSON object read from a file, with where it came from."""

    file: str
    line: int
    data: dict[str, Any]

    def fail(self, reason: str) -> ImportFailure:
        return ImportFailure(self.file, self.line, reason)

    def has(self, key: str) -> bool:
        return key in self.data

    def field(self, key: str, *types: type, optional: bool = False, default: Any = None) -> Any:
        """The value of ``key``; missing or of another type than ``types`` -> ImportFailure."""
        if key not in self.data:
            if optional:
                return default
            raise self.fail(f"missing field '{key}'")
        value = self.data[key]
        if types and not _matches(value, types):
            wanted = " or ".join(_JSON_TYPE_NAMES.get(t, t.__name__) for t in types)
            raise self.fail(f"field '{key}' must be {wanted}, got {json_type_name(value)}")
        return value

    def first_field(self, keys: tuple[str, ...], *types: type) -> Any:
        """The value of the first of ``keys`` present (accepted spellings of one field)."""
        for key in keys:
            if key in self.data:
                return self.field(key, *types)
        raise self.fail(f"missing field '{keys[0]}'")


@dataclass(frozen=True)
class Row:
    """One whitespace- or tab-separated line, split into fields."""

    file: str
    line: int
    fields: list[str]

    def fail(self, reason: str) -> ImportFailure:
        return ImportFailure(self.file, self.line, reason)

    def int(self, index: int, name: str) -> int:
        try:
            return int(self.fields[index])
        except ValueError:
            raise self.fail(f"{name} must be an integer, got {self.fields[index]!r}") from None

    def float(self, index: int, name: str) -> float:
        try:
            return float(self.fields[index])
        except ValueError:
            raise self.fail(f"{name} must be a number, got {self.fields[index]!r}") from None


def _text_lines(path: Path, label: str, progress: bool) -> Iterator[tuple[int, str]]:
    """Decoded non-blank lines with 1-based numbers; undecodable bytes and NUL characters name
    their line."""
    with path.open("rb") as handle:
        lines = tqdm(handle, desc=label, unit=" lines", disable=not progress, leave=False)
        for number, raw in enumerate(lines, start=1):
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                raise ImportFailure(label, number, f"not UTF-8 text ({error.reason})") from None
            if "\x00" in text:
                raise ImportFailure(label, number, f"the line {NUL_REASON}")
            if text.strip():
                yield number, text


def json_problem(value: Any) -> str | None:
    """Why a parsed JSON value cannot be imported (nested deeper than ``MAX_JSON_DEPTH``, or a
    string or key ``text_problem`` refuses); None when it can. Iterative: any depth is safe."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            reason = text_problem(item)
            if reason:
                return reason
        elif isinstance(item, dict | list | tuple):
            if depth > MAX_JSON_DEPTH:
                return DEPTH_REASON
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def _too_deep_at(text: str) -> int | None:
    """Index of the first bracket nested deeper than ``MAX_JSON_DEPTH`` outside strings."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return None
    depth, in_string, escaped_at = 0, False, -1
    for match in _STRUCTURE.finditer(text):
        index, char = match.start(), match.group()
        if index == escaped_at:
            continue
        if char == "\\":
            escaped_at = index + 1
        elif char == '"':
            in_string = not in_string
        elif in_string:
            continue
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return index
        else:
            depth -= 1
    return None


class _Unloadable(ValueError):
    """JSON text the import refuses; ``pos`` is the offending character's index when known."""

    def __init__(self, reason: str, pos: int | None = None, lineno: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.pos, self.lineno = reason, pos, lineno


def _loads(text: str, column_from_pos: bool) -> Any:
    """json.loads under the import's rules (depth, NUL, surrogates) -> _Unloadable."""
    deep = _too_deep_at(text)
    if deep is not None:
        raise _Unloadable(DEPTH_REASON, deep)
    try:
        data = json.loads(text, parse_int=json_int)
    except InputRefused as error:  # an integer literal int() would not convert
        raise _Unloadable(error.message) from None
    except json.JSONDecodeError as error:
        # A JSONL line: pos, not colno, so the line's own trailing newline does not shift it.
        column = error.pos + 1 if column_from_pos else error.colno
        reason = f"malformed JSON: {error.msg} (column {column})"
        raise _Unloadable(reason, lineno=error.lineno) from None
    except RecursionError:  # not reached under MAX_JSON_DEPTH, unless the stack is deep already
        raise _Unloadable(DEPTH_REASON) from None
    suspect = _SUSPECT_ESCAPE.search(text)
    if suspect is not None:
        reason = json_problem(data)
        if reason is not None:
            at = text.find("\\u0000") if reason == NUL_REASON else suspect.start()
            raise _Unloadable(f"a JSON string {reason}", max(at, 0))
    return data


def read_jsonl(path: Path, label: str, progress: bool = False) -> Iterator[Record]:
    """One Record per non-blank line; malformed, too deeply nested or unstorable JSON, or a
    non-object line -> ImportFailure."""
    for number, text in _text_lines(path, label, progress):
        try:
            data = _loads(text, column_from_pos=True)
        except _Unloadable as error:
            raise ImportFailure(label, number, error.reason) from None
        if not isinstance(data, dict):
            reason = f"expected a JSON object, got {json_type_name(data)}"
            raise ImportFailure(label, number, reason)
        yield Record(label, number, data)


def read_json_document(path: Path, label: str) -> Record:
    """A file holding one JSON object (possibly over several lines)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportFailure(label, None, f"not UTF-8 text ({error.reason})") from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ImportFailure(label, line, f"the line {NUL_REASON}")
    try:
        data = _loads(text, column_from_pos=False)
    except _Unloadable as error:
        line = error.lineno or (text.count("\n", 0, error.pos) + 1 if error.pos else 1)
        raise ImportFailure(label, line, error.reason) from None
    if not isinstance(data, dict):
        raise ImportFailure(label, 1, f"expected a JSON object, got {json_type_name(data)}")
    return Record(label, 1, data)


def read_columns(
    path: Path, label: str, count: int, layout: str, progress: bool = False
) -> Iterator[Row]:
    """Whitespace-separated lines of exactly ``count`` fields (``layout`` names them)."""
    for number, text in _text_lines(path, label, progress):
        fields = text.split()
        if len(fields) != count:
            raise ImportFailure(
                label,
                number,
                f"expected {count} whitespace-separated fields ({layout}), got {len(fields)}",
            )
        yield Row(label, number, fields)


def read_tsv_pairs(path: Path, label: str, layout: str, progress: bool = False) -> Iterator[Row]:
    """Lines of ``key<TAB>value`` where the value may hold spaces."""
    for number, text in _text_lines(path, label, progress):
        fields = text.rstrip("\r\n").split("\t", 1)
        if len(fields) != 2 or not fields[0].strip():
            raise ImportFailure(label, number, f"expected two tab-separated fields ({layout})")
        yield Row(label, number, [fields[0].strip(), fields[1].strip()])


@dataclass(frozen=True)
class SourceDir:
    """A folder being imported, and how messages should name the files inside it."""

    root: Path
    name: str  # prefix for file labels; "" labels files by their path relative to root

    def label(self, path: Path) -> str:
        # relpath, not relative_to: release passages may sit beside the folder, not in it.
        relative = Path(os.path.relpath(path, self.root)).as_posix()
        return posixpath.normpath(f"{self.name}/{relative}") if self.name else relative
