"""A post-edit of a topic's nugget list, as a history of operations replayed over the list, and
how far two edited lists agree.

Plain Python (scipy for the matching). A nugget is ``(text, importance)``. Each operation names
the positions it touches in the list as it was just before it, what stood there (``before``) and
what replaces it (``after``):

- ``edit``: one nugget's text changes (its importance does not): ``[i]``, 1 -> 1;
- ``importance``: one nugget is re-labelled vital / okay (its text does not change): ``[i]``,
  1 -> 1;
- ``merge``: two nuggets become one, at the first one's position: ``[i, j]`` (``i < j``), 2 -> 1;
- ``split``: one nugget becomes two, at its position: ``[i]``, 1 -> 2;
- ``add``: a nugget is inserted at ``i`` (``0 <= i <= len``): ``[i]``, 0 -> 1;
- ``delete``: ``[i]``, 1 -> 0.

Replaying checks every ``before`` against the list, so a history that does not fit the list it
claims to edit is refused at the first operation that does not fit.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from evaluation.nuggets.method.scores import IMPORTANCES

EDIT = "edit"
IMPORTANCE = "importance"
MERGE = "merge"
SPLIT = "split"
ADD = "add"
DELETE = "delete"
# op -> (how many positions, nuggets before, nuggets after)
SHAPES: dict[str, tuple[int, int, int]] = {
    EDIT: (1, 1, 1),
    IMPORTANCE: (1, 1, 1),
    MERGE: (2, 2, 1),
    SPLIT: (1, 1, 2),
    ADD: (1, 0, 1),
    DELETE: (1, 1, 0),
}
OPS: tuple[str, ...] = tuple(SHAPES)

# A nugget whose importance differs from its match counts half.
IMPORTANCE_MISMATCH_CREDIT = 0.5

Nugget = tuple[str, str]


class EditError(ValueError):
    """An operation or list that does not fit; ``field`` names where (``history[3].before``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Operation:
    op: str
    positions: tuple[int, ...]
    before: tuple[Nugget, ...]
    after: tuple[Nugget, ...]
    at_ms: int


def clean_text(text: str) -> str:
    """A nugget's text as typed, on one line: whitespace runs become one space."""
    return " ".join(text.split())


def _check_shape(where: str, operation: Operation, size: int) -> None:
    n_positions, n_before, n_after = SHAPES[operation.op]
    if len(operation.positions) != n_positions:
        raise EditError(f"{where}.positions", f"{operation.op} takes {n_positions} position(s)")
    if len(operation.before) != n_before:
        raise EditError(f"{where}.before", f"{operation.op} replaces {n_before} nugget(s)")
    if len(operation.after) != n_after:
        raise EditError(f"{where}.after", f"{operation.op} leaves {n_after} nugget(s)")
    last = size if operation.op == ADD else size - 1
    for position in operation.positions:
        if not 0 <= position <= last:
            raise EditError(
                f"{where}.positions", f"position {position} is outside the list (0 to {last})"
            )
    if operation.op == MERGE and operation.positions[0] >= operation.positions[1]:
        raise EditError(f"{where}.positions", "merge names two positions in increasing order")


def _check_change(where: str, operation: Operation) -> None:
    (old_text, old_importance), (new_text, new_importance) = operation.before[0], operation.after[0]
    if operation.op == EDIT:
        if new_importance != old_importance:
            raise EditError(f"{where}.after", "an edit keeps the importance (re-label it apart)")
        if clean_text(new_text) == clean_text(old_text):
            raise EditError(f"{where}.after", "the edit does not change the text")
    elif operation.op == IMPORTANCE:
        if new_text != old_text:
            raise EditError(f"{where}.after", "a re-label keeps the text")
        if new_importance == old_importance:
            raise EditError(f"{where}.after", "the re-label does not change the importance")


def apply(nuggets: list[Nugget], operation: Operation, where: str = "operation") -> list[Nugget]:
    """The list after ``operation`` (a new list); EditError when it does not fit ``nuggets``."""
    if operation.op not in SHAPES:
        raise EditError(f"{where}.op", f"unknown operation '{operation.op}'")
    _check_shape(where, operation, len(nuggets))
    touched = [nuggets[p] for p in operation.positions] if operation.op != ADD else []
    if [clean_text(t) for t, _ in touched] != [clean_text(t) for t, _ in operation.before] or [
        i for _, i in touched
    ] != [i for _, i in operation.before]:
        raise EditError(
            f"{where}.before", "does not match the list at its position(s) at that point"
        )
    if operation.op in (EDIT, IMPORTANCE):
        _check_change(where, operation)
    result = list(nuggets)
    first = operation.positions[0]
    if operation.op == ADD:
        result.insert(first, operation.after[0])
    elif operation.op == MERGE:
        del result[operation.positions[1]]
        result[first] = operation.after[0]
    else:
        result[first : first + 1] = list(operation.after)
    return result


def replay(original: Sequence[Nugget], history: Sequence[Operation], max_size: int) -> list[Nugget]:
    """The list ``history`` makes of ``original``; untouched nuggets keep their exact text."""
    nuggets = list(original)
    for index, operation in enumerate(history):
        nuggets = apply(nuggets, operation, f"history[{index}]")
        if len(nuggets) > max_size:
            raise EditError(f"history[{index}]", f"the list grows past {max_size} nuggets")
    return nuggets


def check_importance(field: str, importance: object) -> str:
    if importance not in IMPORTANCES:
        raise EditError(field, f"importance must be vital or okay, got {importance!r}")
    return str(importance)


# ---- agreement of two edited lists ----------------------------------------------------------


def _tokens(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.casefold()))


def text_f1(a: str, b: str) -> float:
    """Token F1 of two texts (case and punctuation ignored, word order too)."""
    left, right = _tokens(a), _tokens(b)
    if not left or not right:
        return float(clean_text(a).casefold() == clean_text(b).casefold())
    common = sum((left & right).values())
    return 2 * common / (sum(left.values()) + sum(right.values()))


def list_agreement(answer: Sequence[Nugget], gold: Sequence[Nugget]) -> float:
    """How far an edited list matches a gold one, in [0, 1]: the nuggets are paired one to one
    to maximise the summed token F1 of their texts (a pair whose importance differs counts
    half), and the sum is divided by the longer list's length. 1.0 exactly when both lists hold
    the same statements (as bags of words) with the same importance; order is ignored."""
    if not answer and not gold:
        return 1.0
    if not answer or not gold:
        return 0.0
    credit = np.array(
        [
            [
                text_f1(a_text, g_text) * (1.0 if a_imp == g_imp else IMPORTANCE_MISMATCH_CREDIT)
                for g_text, g_imp in gold
            ]
            for a_text, a_imp in answer
        ]
    )
    rows, cols = linear_sum_assignment(credit, maximize=True)
    return float(credit[rows, cols].sum()) / max(len(answer), len(gold))
