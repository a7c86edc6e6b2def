"""Answers of the ``nugget_post_editing`` task: an annotator's edited nugget list of one topic.

The workspace (this app's ``static/js/nugget_editor.js``) keeps one hidden field, ``edits``,
up to date with the whole answer as JSON::

    {"nuggets": [{"text": str, "importance": "vital" | "okay"}, ...],
     "history": [{"op", "positions": [int], "before": [nugget], "after": [nugget],
                  "at_ms": int}, ...]}

``history`` is every operation in the order it was done (``at_ms``: milliseconds after the item
was shown, never decreasing); ``method.list_edits`` says what each operation is. The parser
replays the history over the item's snapshot of the list and refuses the answer unless it
gives exactly ``nuggets``; the stored answer is the replayed list, so an untouched nugget keeps
its exact stored text (what ``adopt_nugget_edits`` recognises as unchanged). Bounds: 1 to
``MAX_NUGGETS`` nuggets (also on the way), ``MAX_TEXT_CHARS`` a nugget (white space runs
become one space), ``MAX_OPERATIONS`` operations; every refusal names the field at fault
(``history[3].after[0].text``).

Gold answers (one CSV cell): the list as JSON, either ``[{"text", "importance"}, ...]`` or
``{"nuggets": [...]}``. The score is ``method.list_edits.list_agreement`` (token F1 of paired
nugget texts, importance mismatches half), 1.0 for the same list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotation.task_types.answers import AnswerError
from crux_app.client_input import InputRefused, loads_json
from evaluation.nuggets.method.list_edits import (
    OPS,
    EditError,
    Nugget,
    Operation,
    check_importance,
    clean_text,
    list_agreement,
    replay,
)
from evaluation.nuggets.method.scores import VITAL

FIELD = "edits"
MIN_NUGGETS = 1
MAX_NUGGETS = 60
MAX_TEXT_CHARS = 600
MAX_OPERATIONS = 400
MAX_AT_MS = 10**9  # about 11 days on one item: more is a broken clock, not work
MAX_ANSWER_CHARS = 400_000
NUGGET_KEYS = {"text", "importance"}
OPERATION_KEYS = {"op", "positions", "before", "after", "at_ms"}


def _object(field: str, value: Any, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise EditError(field, "must be an object")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise EditError(field, f"unknown key(s) {', '.join(unknown)}")
    missing = sorted(keys - set(value))
    if missing:
        raise EditError(field, f"missing key(s) {', '.join(missing)}")
    return value


def _list(field: str, value: Any, limit: int) -> list:
    if not isinstance(value, list):
        raise EditError(field, "must be a list")
    if len(value) > limit:
        raise EditError(field, f"holds {len(value)} entries, at most {limit}")
    return value


def _nugget(field: str, value: Any) -> Nugget:
    item = _object(field, value, NUGGET_KEYS)
    text = item["text"]
    if not isinstance(text, str):
        raise EditError(f"{field}.text", "must be text")
    text = clean_text(text)
    if not text:
        raise EditError(f"{field}.text", "is empty: write the nugget, or delete it")
    if len(text) > MAX_TEXT_CHARS:
        raise EditError(
            f"{field}.text", f"is {len(text)} characters long, at most {MAX_TEXT_CHARS}"
        )
    return text, check_importance(f"{field}.importance", item["importance"])


def _nuggets(field: str, value: Any, limit: int) -> list[Nugget]:
    return [_nugget(f"{field}[{i}]", v) for i, v in enumerate(_list(field, value, limit))]


def _integer(field: str, value: Any, high: int) -> int:
    # bool is an int in Python; JSON true is not a position.
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= high:
        raise EditError(field, f"must be a whole number from 0 to {high:,}")
    return value


def _operation(field: str, value: Any, previous_ms: int) -> Operation:
    item = _object(field, value, OPERATION_KEYS)
    if item["op"] not in OPS:
        raise EditError(f"{field}.op", f"unknown operation {item['op']!r}; one of {', '.join(OPS)}")
    positions = _list(f"{field}.positions", item["positions"], 2)
    at_ms = _integer(f"{field}.at_ms", item["at_ms"], MAX_AT_MS)
    if at_ms < previous_ms:
        raise EditError(f"{field}.at_ms", "operations must be listed in the order they were done")
    return Operation(
        op=item["op"],
        positions=tuple(
            _integer(f"{field}.positions[{i}]", p, MAX_NUGGETS) for i, p in enumerate(positions)
        ),
        before=tuple(_nuggets(f"{field}.before", item["before"], 2)),
        after=tuple(_nuggets(f"{field}.after", item["after"], 2)),
        at_ms=at_ms,
    )


def snapshot(payload: Mapping[str, Any]) -> list[Nugget]:
    """The item's list as shown: (text, importance) in position order."""
    return [(n["text"], n["importance"]) for n in payload.get("nuggets", [])]


def as_objects(nuggets: list[Nugget]) -> list[dict[str, str]]:
    return [{"text": text, "importance": importance} for text, importance in nuggets]


def _operation_object(operation: Operation) -> dict[str, Any]:
    return {
        "op": operation.op,
        "positions": list(operation.positions),
        "before": as_objects(list(operation.before)),
        "after": as_objects(list(operation.after)),
        "at_ms": operation.at_ms,
    }


def _decoded(raw: str | None) -> Any:
    text = (raw or "").strip()
    if not text:
        raise EditError(FIELD, "no edited list was sent: edit the list (or keep it) and submit")
    if len(text) > MAX_ANSWER_CHARS:
        raise EditError(FIELD, f"is {len(text):,} characters long, at most {MAX_ANSWER_CHARS:,}")
    try:
        return loads_json(FIELD, text)
    except InputRefused as error:
        raise EditError(error.field, error.message) from None


def checked_answer(value: Any, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The answer an ``edits`` object makes for an item with ``payload`` (EditError if none)."""
    answer = _object(FIELD, value, {"nuggets", "history"})
    nuggets = _nuggets("nuggets", answer["nuggets"], MAX_NUGGETS)
    if len(nuggets) < MIN_NUGGETS:
        raise EditError("nuggets", "keep at least one nugget")
    history, previous = [], 0
    for index, item in enumerate(_list("history", answer["history"], MAX_OPERATIONS)):
        history.append(_operation(f"history[{index}]", item, previous))
        previous = history[-1].at_ms
    final = replay(snapshot(payload), history, MAX_NUGGETS)
    if [(clean_text(t), i) for t, i in final] != nuggets:
        raise EditError("nuggets", "the list is not what its history of operations makes")
    return {"nuggets": as_objects(final), "history": [_operation_object(o) for o in history]}


def parse_post_edit(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    """The answer of the workspace's ``edits`` field (AnswerError naming the field at fault)."""
    try:
        return checked_answer(_decoded(data.get(FIELD)), payload)
    except EditError as error:
        raise AnswerError(error.field, error.message) from None


def post_edit_draft(answer: Mapping[str, Any]) -> dict[str, str]:
    return {FIELD: json.dumps(dict(answer), ensure_ascii=False)}


def parse_post_edit_gold(text: str, payload: Mapping[str, Any]) -> dict:
    """A gold list: ``[{"text", "importance"}, ...]`` or ``{"nuggets": [...]}`` as JSON."""
    try:
        value = _decoded(text)
        if isinstance(value, dict):
            value = _object(FIELD, value, {"nuggets"})["nuggets"]
        nuggets = _nuggets("nuggets", value, MAX_NUGGETS)
        if len(nuggets) < MIN_NUGGETS:
            raise EditError("nuggets", "a gold list holds at least one nugget")
    except EditError as error:
        raise AnswerError(error.field, error.message) from None
    return {"nuggets": as_objects(nuggets), "history": []}


def _pairs(answer: Mapping[str, Any]) -> list[Nugget]:
    return [(n["text"], n["importance"]) for n in answer.get("nuggets", [])]


def post_edit_score(answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int) -> float:
    """``list_agreement`` of the two lists (``tolerance`` is for ratings; unused)."""
    return list_agreement(_pairs(answer), _pairs(gold))


def post_edit_summary(answer: Mapping[str, Any]) -> str:
    nuggets = answer.get("nuggets", [])
    vital = sum(n.get("importance") == VITAL for n in nuggets)
    n_ops = len(answer.get("history", []))
    edits = f"{n_ops} edit{'s' if n_ops != 1 else ''}" if n_ops else "unchanged"
    return f"{len(nuggets)} nuggets ({vital} vital), {edits}"


EXPORT_COLUMNS = ("edited_nuggets", "n_nuggets", "n_vital", "n_operations", "edit_history")


def post_edit_rows(answer: Mapping[str, Any], payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per answer: the edited list as a nuggetizer ``create`` line
    (``{"qid", "query", "nuggets": [{"text", "importance"}]}``) and the history as JSON."""
    nuggets = [
        {"text": n["text"], "importance": n["importance"]} for n in answer.get("nuggets", [])
    ]
    line = {"qid": payload.get("topic"), "query": payload.get("query", ""), "nuggets": nuggets}
    return [
        {
            "edited_nuggets": json.dumps(line, ensure_ascii=False),
            "n_nuggets": len(nuggets),
            "n_vital": sum(n["importance"] == VITAL for n in nuggets),
            "n_operations": len(answer.get("history", [])),
            "edit_history": json.dumps(answer.get("history", []), ensure_ascii=False),
        }
    ]
