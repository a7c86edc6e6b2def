"""An UMBRELA-style 0-3 passage relevance rubric for (query, passage) pairs, as versioned
prompt templates, and its grade parser.

UMBRELA (Upadhyay et al., 2024) reproduces, with an open LLM, the Bing relevance prompt of
Thomas et al.: a four-level scale from "nothing to do with the query" to "dedicated to the query
and holding the exact answer", a note on telling the middle levels apart, the query and the
passage, then a few steps (the searcher's intent, how well the passage matches it, how
trustworthy it is) before a single final grade. This wording is our own and follows that
structure; its grades are TREC qrels grades, so a judge with this rubric produces qrels.

The version is part of a judge's identity, as for CRUX's rubric: rewording means a new version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

RUBRIC = "umbrela"
GRADES = range(0, 4)


class RelevanceLevel(NamedTuple):
    grade: int
    text: str


RELEVANCE_LEVELS: tuple[RelevanceLevel, ...] = (  # lowest first, as UMBRELA lists them
    RelevanceLevel(0, "the passage has nothing to do with the query"),
    RelevanceLevel(1, "the passage is about the query's subject but does not answer it"),
    RelevanceLevel(
        2,
        "the passage holds some answer to the query, but the answer is unclear or hidden "
        "among other information",
    ),
    RelevanceLevel(3, "the passage is devoted to the query and holds the exact answer"),
)
RELEVANCE_GUIDELINE = "\n".join(f"{level.grade} = {level.text}" for level in RELEVANCE_LEVELS)


@dataclass(frozen=True)
class RelevancePrompt:
    """A (query, passage) relevance prompt; ``render`` takes the CRUX prompt's argument order
    (the question first, the context second) so the judging engine renders either rubric."""

    version: str
    template: str
    rubric: str = RUBRIC

    def render(self, question: str, context: str) -> str:
        return self.template.format(
            guideline=RELEVANCE_GUIDELINE, query=question.strip(), passage=context.strip()
        )

    def parse(self, raw_output: str) -> int | None:
        return parse_relevance(raw_output)


UMBRELA_V1 = RelevancePrompt(
    version="umbrela-v1",
    template=(
        "You are judging search results. Given a query and a passage, grade how relevant the "
        "passage is to the query on a whole-number scale from 0 to 3:\n{guideline}\n\n"
        "How to tell the levels apart: give 1 when the passage touches the query's subject "
        "without serving it; give 2 when it says something that matters for the whole query "
        "but mixes it with other material; give 3 only when the passage is about the query and "
        "nothing else. When none of these fits, give 0.\n\n"
        "Query: {query}\n\nPassage: {passage}\n\n"
        "Work through it silently: think about what the person searching most likely wants; "
        "judge how well the passage meets that need; judge how trustworthy the passage is; "
        "weigh these and settle on one final grade. Answer with that grade alone, a single "
        "digit 0, 1, 2 or 3, with no explanation.\n\nGrade:"
    ),
)

PROMPTS: dict[str, RelevancePrompt] = {p.version: p for p in (UMBRELA_V1,)}
DEFAULT_VERSION = UMBRELA_V1.version

# A whole number not inside a decimal or a negative number; the grade after the last
# "grade:" / "score:" label wins over numbers before it (a model echoing the scale "0 to 3").
_INTEGER = re.compile(r"(?<![\d.\-])(\d+)(?!\d|\.\d)")
_LABEL = re.compile(r"(?:grade|score)\s*[:=]", re.IGNORECASE)


def parse_relevance(raw_output: str) -> int | None:
    """The grade 0-3 of a model's output: the first whole number (after the last "grade:" or
    "score:" label when there is one); None when there is none or it lies outside 0-3 (an
    out-of-scale answer is unparsable, never clipped)."""
    labels = list(_LABEL.finditer(raw_output))
    text = raw_output[labels[-1].end() :] if labels else raw_output
    match = _INTEGER.search(text)
    if match is None:
        return None
    grade = int(match.group(1))
    return grade if grade in GRADES else None
