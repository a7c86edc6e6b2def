"""The nugget judge's prompts, in this project's own words, and the parsers of their replies.

Four tasks, after the TREC 2024 RAG track's AutoNuggetizer and its support task:

- creation: the nugget list, updated window by window over a topic's top judged passages;
- importance: vital or okay, one nugget at a time;
- assignment: does the answer support the nugget (3 grades, or 2);
- sentence support: does a cited passage support a sentence (0, 1 or 2).

Every reply the judges parse is a single digit where it can be, so that distribution mode can
read the digits' log-probabilities instead of generating. ``PROMPT_VERSION`` goes into the
judge's identity: a changed wording is another judge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PROMPT_VERSION = "nuggets-v1"
MAX_NUGGETS = 30
MAX_NUGGET_CHARS = 300

SUPPORT, PARTIAL_SUPPORT, NOT_SUPPORT = "support", "partial_support", "not_support"
# Digit -> label of each grading scheme (the digits are the distribution mode's candidates).
ASSIGNMENT_DIGITS = {
    3: {"1": SUPPORT, "2": PARTIAL_SUPPORT, "3": NOT_SUPPORT},
    2: {"1": SUPPORT, "2": NOT_SUPPORT},
}
IMPORTANCE_DIGITS = {"1": "vital", "2": "okay"}
SENTENCE_DIGITS = {"0": 0, "1": 1, "2": 2}

_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d{1,3}[.)])\s+(.*\S)\s*$")
_DIGIT = re.compile(r"\d")


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i + 1}. {text}" for i, text in enumerate(items)) or "(none yet)"


def creation_prompt(query: str, nuggets: Sequence[str], passages: Sequence[str]) -> str:
    """One step of the iterative creation: the list so far and the next window of passages."""
    shown = "\n\n".join(f"[{i + 1}] {text}" for i, text in enumerate(passages))
    return (
        "You are building a checklist of the atomic facts a good answer to a question should "
        "contain. Each fact is one short, self-contained statement (a nugget).\n\n"
        f"Question: {query}\n\n"
        f"Nuggets so far:\n{_numbered(nuggets)}\n\n"
        f"New passages:\n{shown}\n\n"
        "Rewrite the nugget list: keep the useful nuggets, add the facts from the new passages "
        "that help answer the question, merge duplicates, and keep at most "
        f"{MAX_NUGGETS} nuggets. Reply with the list only, one nugget per line, each line "
        'starting with "- ".'
    )


def parse_nugget_list(reply: str) -> list[str]:
    """The nuggets of a creation reply: list lines only, de-duplicated, in order, capped."""
    seen: dict[str, None] = {}
    for line in reply.splitlines():
        match = _LIST_ITEM.match(line)
        if match:
            text = match.group(1).strip()[:MAX_NUGGET_CHARS]
            seen.setdefault(text, None)
    return list(seen)[:MAX_NUGGETS]


def importance_prompt(query: str, nugget: str) -> str:
    return (
        f"Question: {query}\n"
        f"Fact: {nugget}\n\n"
        "Is this fact vital to a good answer (an answer without it would be incomplete) or "
        "merely okay (useful, but an answer may leave it out)? Reply with one digit: 1 for "
        "vital, 2 for okay.\nDigit:"
    )


def assignment_prompt(query: str, answer: str, nugget: str, grades: int) -> str:
    if grades not in ASSIGNMENT_DIGITS:
        raise ValueError(f"grades must be 2 or 3, got {grades}")
    scale = (
        "1 if the answer states the fact fully, 2 if it states part of it or only implies "
        "it, 3 if it does not state it"
        if grades == 3
        else "1 if the answer states the fact, 2 if it does not"
    )
    return (
        f"Question: {query}\n"
        f"Answer: {answer}\n"
        f"Fact: {nugget}\n\n"
        f"Does the answer contain this fact? Reply with one digit: {scale}.\nDigit:"
    )


def sentence_support_prompt(sentence: str, passage: str) -> str:
    return (
        f"Passage: {passage}\n"
        f"Sentence: {sentence}\n\n"
        "Does the passage back up what the sentence says? Reply with one digit: 2 if it "
        "supports the whole sentence, 1 if it supports part of it, 0 if it does not support "
        "it.\nDigit:"
    )


def parse_digit(reply: str, digits: dict[str, object]) -> object | None:
    """The label of the first digit in the reply; None when there is none or it is not one of
    the scheme's (never coerced to a label)."""
    match = _DIGIT.search(reply)
    if match is None:
        return None
    return digits.get(match.group())
