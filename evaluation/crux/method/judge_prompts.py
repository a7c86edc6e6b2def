"""CRUX's 0-5 answerability rubric as versioned prompt templates, and the rating parser.

The prompt version is part of a judge's identity: changing a template's wording means a new
version, so ratings from different wordings are never mixed.
"""

import re
from dataclasses import dataclass

RUBRIC_GUIDELINE = (
    "- 5: The context is highly relevant, complete, and accurate for answering the question.\n"
    "- 4: The context is mostly relevant and complete but may have minor gaps or inaccuracies.\n"
    "- 3: The context is partially relevant and complete, with noticeable gaps or "
    "inaccuracies.\n"
    "- 2: The context has limited relevance and completeness, with significant gaps or "
    "inaccuracies.\n"
    "- 1: The context is minimally relevant or complete, with substantial shortcomings.\n"
    "- 0: The context is not relevant or complete at all."
)


@dataclass(frozen=True)
class RubricPrompt:
    version: str
    instruction: str
    template: str

    def render(self, question: str, context: str) -> str:
        return self.template.format(
            instruction=self.instruction,
            guideline=RUBRIC_GUIDELINE,
            question=question.strip(),
            context=context.strip(),
        )


CRUX_RUBRIC_V1 = RubricPrompt(
    version="crux-rubric-v1",
    instruction=(
        "Determine whether the question can be answered based on the provided context. "
        "Rate the context on a scale from 0 to 5 according to the guideline below. "
        "Output only the rating, a single number."
    ),
    template=(
        "{instruction}\n\nGuideline:\n{guideline}\n\n"
        "Question: {question}\n\nContext: {context}\n\nRating:"
    ),
)

PROMPTS: dict[str, RubricPrompt] = {p.version: p for p in (CRUX_RUBRIC_V1,)}
DEFAULT_PROMPT_VERSION = CRUX_RUBRIC_V1.version

# The judge's decoding settings from METHODS section 1.
JUDGE_MAX_NEW_TOKENS = 5

_FIRST_RATING = re.compile(r"(?<![\d.\-])([0-5])(?!\d|\.\d)")


def get_prompt(version: str) -> RubricPrompt:
    try:
        return PROMPTS[version]
    except KeyError:
        known = ", ".join(sorted(PROMPTS))
        raise ValueError(f"unknown prompt version {version!r} (known: {known})") from None


def parse_rating(raw_output: str) -> int | None:
    """The first standalone integer 0-5 in a model's output, or None when there is none."""
    match = _FIRST_RATING.search(raw_output)
    return int(match.group(1)) if match else None
