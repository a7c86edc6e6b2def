"""Answers: parse a submitted form, parse a gold value, score agreement (each through the task
type's registry entry), and the answers of the four built-in task types.

Plain Python. Answer shapes (stored as JSON on the assignment):

- passage_rating: ``{"rating": 0-5, "rationale": str, "rationale_start": int|None,
  "rationale_end": int|None}``
- report_coverage: ``{"answers": [{"position", "answerable": 0|1, "span", "span_start",
  "span_end"}, ...]}`` in the order of the item's sub-questions
- answer_equivalence: ``{"equivalent": bool}``
- failure_category: ``{"category": "A".."F"}``

Span offsets count code points in the shown text (what the workspace computes). A span whose
offsets do not match the text is re-anchored at its first occurrence, or kept without offsets:
a selection that lost a character to the browser must not block a submission.
"""

from collections.abc import Mapping
from typing import Any

from annotation.task_types.names import FAILURE_CATEGORIES
from annotation.task_types.registry import TASK_TYPE_REGISTRY, TaskType
from annotation.task_types.registry import task_type as task_type_entry
from crux_app.client_input import InputRefused, checked_text, whole_number

# A span is text of the shown item; a longer one (or an offset past it) is no selection.
MAX_SPAN_CHARS = 20_000
MAX_SPAN_OFFSET = 10**9
YES = frozenset({"y", "yes", "1", "true"})
NO = frozenset({"n", "no", "0", "false"})


class AnswerError(ValueError):
    """A submitted or uploaded answer that does not fit the task; names the field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _yes_no(field: str, value: str | None) -> bool:
    text = (value or "").strip().lower()
    if text in YES:
        return True
    if text in NO:
        return False
    raise AnswerError(field, "answer yes or no")


def _rating(field: str, value: str | None) -> int:
    text = (value or "").strip()
    if text not in {str(r) for r in range(6)}:
        raise AnswerError(field, "choose a rating from 0 to 5")
    return int(text)


def _offset(field: str, value: str | None) -> int | None:
    text = (value or "").strip()
    if not text:
        return None
    try:
        return whole_number(field, text, 0, MAX_SPAN_OFFSET)
    except InputRefused as error:
        raise AnswerError(field, f"a character offset {error.message}") from None


def anchor_span(
    text: str, span: str, start: int | None, end: int | None
) -> tuple[str, int | None, int | None]:
    """The span with offsets that match ``text``: as given, re-anchored, or without offsets."""
    span = span.strip("\n")
    if not span:
        return "", None, None
    if start is not None and end is not None and text[start:end] == span:
        return span, start, end
    found = text.find(span)
    if found >= 0:
        return span, found, found + len(span)
    return span, None, None


def _span(
    data: Mapping[str, str], text: str, name: str, start_name: str, end_name: str
) -> tuple[str, int | None, int | None]:
    start = _offset(start_name, data.get(start_name))
    end = _offset(end_name, data.get(end_name))
    if start is not None and end is not None and end < start:
        raise AnswerError(end_name, "the span ends before it starts")
    try:
        span = checked_text(name, data.get(name, "") or "", MAX_SPAN_CHARS)
    except InputRefused as error:
        raise AnswerError(name, error.message) from None
    return anchor_span(text, span, start, end)


def _entry(task_type: str) -> TaskType:
    try:
        return task_type_entry(task_type)
    except KeyError:
        raise AnswerError("task_type", f"unknown task type '{task_type}'") from None


def parse_answer(task_type: str, data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    """The answer a workspace form submitted for an item with this ``payload``."""
    return _entry(task_type).parse_answer(data, payload)


def answer_to_draft(task_type: str, answer: Mapping[str, Any] | None) -> dict[str, str]:
    """A stored answer as the workspace form's fields (the inverse of ``parse_answer``): an
    undone answer comes back as the draft of its item, so nothing has to be re-entered."""
    if not answer or task_type not in TASK_TYPE_REGISTRY:
        return {}
    return TASK_TYPE_REGISTRY[task_type].answer_to_draft(answer)


def parse_gold_value(task_type: str, text: str, payload: Mapping[str, Any]) -> dict:
    """A gold answer written as one cell: ``0``-``5``, ``yes``/``no``, ``A``-``F``, or for
    report coverage one yes/no per sub-question in order (``y n y`` or ``1,0,1``)."""
    return _entry(task_type).parse_gold(text, payload)


def agreement_score(
    task_type: str, answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int = 0
) -> float:
    """How far ``answer`` matches ``gold``, in [0, 1].

    A rating counts as correct within ``tolerance`` points; report coverage scores the share of
    sub-questions whose yes/no matches; the binary and categorical tasks are exact.
    """
    return _entry(task_type).score(answer, gold, tolerance)


def answer_summary(task_type: str, answer: Mapping[str, Any] | None) -> str:
    """A short human-readable form of an answer, for tables (``3``, ``y n y``, ``yes``, ``C``)."""
    if not answer or task_type not in TASK_TYPE_REGISTRY:
        return ""
    return TASK_TYPE_REGISTRY[task_type].summary(answer)


def text_value(value: Any) -> str:
    """A stored answer field as a form field's text (None as empty)."""
    return "" if value is None else str(value)


# ---- The built-in task types' answers (their entries: annotation.builtin_task_types) ----


def parse_rating_answer(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    rating = _rating("rating", data.get("rating"))
    span, start, end = _span(
        data, payload.get("passage", ""), "rationale", "rationale_start", "rationale_end"
    )
    return {"rating": rating, "rationale": span, "rationale_start": start, "rationale_end": end}


def rating_draft(answer: Mapping[str, Any]) -> dict[str, str]:
    return {
        "rating": text_value(answer.get("rating")),
        "rationale": text_value(answer.get("rationale")),
        "rationale_start": text_value(answer.get("rationale_start")),
        "rationale_end": text_value(answer.get("rationale_end")),
    }


def parse_rating_gold(text: str, payload: Mapping[str, Any]) -> dict:
    return {"rating": _rating("answer", text)}


def rating_score(answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int) -> float:
    return float(abs(answer["rating"] - gold["rating"]) <= tolerance)


def parse_coverage_answer(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    report = payload.get("report", "")
    answers = []
    for question in payload.get("questions", []):
        pos = question["position"]
        answerable = _yes_no(f"answer_{pos}", data.get(f"answer_{pos}"))
        span, start, end = _span(
            data, report, f"span_{pos}", f"span_start_{pos}", f"span_end_{pos}"
        )
        answers.append(
            {
                "position": pos,
                "answerable": int(answerable),
                "span": span if answerable else "",
                "span_start": start if answerable else None,
                "span_end": end if answerable else None,
            }
        )
    return {"answers": answers}


def coverage_draft(answer: Mapping[str, Any]) -> dict[str, str]:
    draft = {}
    for mark in answer.get("answers", []):
        pos = mark["position"]
        draft[f"answer_{pos}"] = "yes" if mark.get("answerable") else "no"
        draft[f"span_{pos}"] = text_value(mark.get("span"))
        draft[f"span_start_{pos}"] = text_value(mark.get("span_start"))
        draft[f"span_end_{pos}"] = text_value(mark.get("span_end"))
    return draft


def parse_coverage_gold(text: str, payload: Mapping[str, Any]) -> dict:
    marks = text.replace(",", " ").split()
    positions = [q["position"] for q in payload.get("questions", [])]
    if len(marks) != len(positions):
        raise AnswerError("answer", f"give {len(positions)} yes/no values, one per sub-question")
    return {
        "answers": [
            {"position": pos, "answerable": int(_yes_no("answer", mark))}
            for pos, mark in zip(positions, marks, strict=True)
        ]
    }


def _answerability(answer: Mapping[str, Any]) -> dict[int, int]:
    return {a["position"]: a["answerable"] for a in answer.get("answers", [])}


def coverage_score(answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int) -> float:
    expected = _answerability(gold)
    given = _answerability(answer)
    if not expected:
        return 0.0
    return sum(given.get(pos) == value for pos, value in expected.items()) / len(expected)


def coverage_summary(answer: Mapping[str, Any]) -> str:
    return " ".join("y" if a["answerable"] else "n" for a in answer.get("answers", []))


def parse_equivalence_answer(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    return {"equivalent": _yes_no("equivalent", data.get("equivalent"))}


def equivalence_draft(answer: Mapping[str, Any]) -> dict[str, str]:
    return {"equivalent": "yes" if answer.get("equivalent") else "no"}


def parse_equivalence_gold(text: str, payload: Mapping[str, Any]) -> dict:
    return {"equivalent": _yes_no("answer", text)}


def equivalence_score(answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int) -> float:
    return float(answer["equivalent"] == gold["equivalent"])


def parse_category_answer(data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    category = (data.get("category") or "").strip().upper()
    if category not in FAILURE_CATEGORIES:
        raise AnswerError("category", "choose a category from A to F")
    return {"category": category}


def category_draft(answer: Mapping[str, Any]) -> dict[str, str]:
    return {"category": text_value(answer.get("category"))}


def parse_category_gold(text: str, payload: Mapping[str, Any]) -> dict:
    return parse_category_answer({"category": text}, payload)


def category_score(answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int) -> float:
    return float(answer["category"] == gold["category"])


def rating_summary(answer: Mapping[str, Any]) -> str:
    return str(answer["rating"])


def equivalence_summary(answer: Mapping[str, Any]) -> str:
    return "yes" if answer["equivalent"] else "no"


def category_summary(answer: Mapping[str, Any]) -> str:
    return answer["category"]
