"""Answers of the four task types: parse a submitted form, parse a gold value, score agreement.

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

from .task_types import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORIES,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)

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
    if not text.isdigit():
        raise AnswerError(field, f"'{text}' is not a character offset")
    return int(text)


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
    return anchor_span(text, data.get(name, "") or "", start, end)


def parse_answer(task_type: str, data: Mapping[str, str], payload: Mapping[str, Any]) -> dict:
    """The answer a workspace form submitted for an item with this ``payload``."""
    if task_type == PASSAGE_RATING:
        rating = _rating("rating", data.get("rating"))
        span, start, end = _span(
            data, payload.get("passage", ""), "rationale", "rationale_start", "rationale_end"
        )
        return {
            "rating": rating,
            "rationale": span,
            "rationale_start": start,
            "rationale_end": end,
        }
    if task_type == REPORT_COVERAGE:
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
    if task_type == ANSWER_EQUIVALENCE:
        return {"equivalent": _yes_no("equivalent", data.get("equivalent"))}
    if task_type == FAILURE_CATEGORY:
        category = (data.get("category") or "").strip().upper()
        if category not in FAILURE_CATEGORIES:
            raise AnswerError("category", "choose a category from A to F")
        return {"category": category}
    raise AnswerError("task_type", f"unknown task type '{task_type}'")


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def answer_to_draft(task_type: str, answer: Mapping[str, Any] | None) -> dict[str, str]:
    """A stored answer as the workspace form's fields (the inverse of ``parse_answer``): an
    undone answer comes back as the draft of its item, so nothing has to be re-entered."""
    if not answer:
        return {}
    if task_type == PASSAGE_RATING:
        return {
            "rating": _text(answer.get("rating")),
            "rationale": _text(answer.get("rationale")),
            "rationale_start": _text(answer.get("rationale_start")),
            "rationale_end": _text(answer.get("rationale_end")),
        }
    if task_type == REPORT_COVERAGE:
        draft = {}
        for mark in answer.get("answers", []):
            pos = mark["position"]
            draft[f"answer_{pos}"] = "yes" if mark.get("answerable") else "no"
            draft[f"span_{pos}"] = _text(mark.get("span"))
            draft[f"span_start_{pos}"] = _text(mark.get("span_start"))
            draft[f"span_end_{pos}"] = _text(mark.get("span_end"))
        return draft
    if task_type == ANSWER_EQUIVALENCE:
        return {"equivalent": "yes" if answer.get("equivalent") else "no"}
    if task_type == FAILURE_CATEGORY:
        return {"category": _text(answer.get("category"))}
    return {}


def parse_gold_value(task_type: str, text: str, payload: Mapping[str, Any]) -> dict:
    """A gold answer written as one cell: ``0``-``5``, ``yes``/``no``, ``A``-``F``, or for
    report coverage one yes/no per sub-question in order (``y n y`` or ``1,0,1``)."""
    if task_type == PASSAGE_RATING:
        return {"rating": _rating("answer", text)}
    if task_type == REPORT_COVERAGE:
        marks = text.replace(",", " ").split()
        positions = [q["position"] for q in payload.get("questions", [])]
        if len(marks) != len(positions):
            raise AnswerError(
                "answer", f"give {len(positions)} yes/no values, one per sub-question"
            )
        return {
            "answers": [
                {"position": pos, "answerable": int(_yes_no("answer", mark))}
                for pos, mark in zip(positions, marks, strict=True)
            ]
        }
    if task_type == ANSWER_EQUIVALENCE:
        return {"equivalent": _yes_no("answer", text)}
    if task_type == FAILURE_CATEGORY:
        return parse_answer(task_type, {"category": text}, payload)
    raise AnswerError("task_type", f"unknown task type '{task_type}'")


def _answerability(answer: Mapping[str, Any]) -> dict[int, int]:
    return {a["position"]: a["answerable"] for a in answer.get("answers", [])}


def agreement_score(
    task_type: str, answer: Mapping[str, Any], gold: Mapping[str, Any], tolerance: int = 0
) -> float:
    """How far ``answer`` matches ``gold``, in [0, 1].

    A rating counts as correct within ``tolerance`` points; report coverage scores the share of
    sub-questions whose yes/no matches; the binary and categorical tasks are exact.
    """
    if task_type == PASSAGE_RATING:
        return float(abs(answer["rating"] - gold["rating"]) <= tolerance)
    if task_type == REPORT_COVERAGE:
        expected = _answerability(gold)
        given = _answerability(answer)
        if not expected:
            return 0.0
        return sum(given.get(pos) == value for pos, value in expected.items()) / len(expected)
    if task_type == ANSWER_EQUIVALENCE:
        return float(answer["equivalent"] == gold["equivalent"])
    if task_type == FAILURE_CATEGORY:
        return float(answer["category"] == gold["category"])
    raise AnswerError("task_type", f"unknown task type '{task_type}'")


def answer_summary(task_type: str, answer: Mapping[str, Any] | None) -> str:
    """A short human-readable form of an answer, for tables (``3``, ``y n y``, ``yes``, ``C``)."""
    if not answer:
        return ""
    if task_type == PASSAGE_RATING:
        return str(answer["rating"])
    if task_type == REPORT_COVERAGE:
        return " ".join("y" if a["answerable"] else "n" for a in answer.get("answers", []))
    if task_type == ANSWER_EQUIVALENCE:
        return "yes" if answer["equivalent"] else "no"
    if task_type == FAILURE_CATEGORY:
        return answer["category"]
    return ""
