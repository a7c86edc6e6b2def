"""CRUX's 0-5 answerability rubric as versioned prompt templates, and the rating parser; the
judge's rubrics (CRUX's, and the UMBRELA-style 0-3 relevance rubric of ``relevance_prompts``).

The prompt version is part of a judge's identity: changing a template's wording means a new
version, so ratings from different wordings are never mixed.
"""

import re
from dataclasses import dataclass

from crux_app.vocabulary import RUBRIC_LEVELS
from evaluation.crux.method import relevance_prompts
from evaluation.crux.method.relevance_prompts import RelevancePrompt

# The rubric's wording lives in the shared vocabulary (the annotators' workspace shows the same
# levels); this is the prompt's layout of it, one "- rating: text" line per level, 5 first.
RUBRIC_GUIDELINE = "\n".join(f"- {level.rating}: {level.text}" for level in RUBRIC_LEVELS)


CRUX = "crux"


@dataclass(frozen=True)
class RubricPrompt:
    version: str
    instruction: str
    template: str
    rubric: str = CRUX

    def render(self, question: str, context: str) -> str:
        return self.template.format(
            instruction=self.instruction,
            guideline=RUBRIC_GUIDELINE,
            question=question.strip(),
            context=context.strip(),
        )

    def parse(self, raw_output: str) -> int | None:
        return parse_rating(raw_output)


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


# ---- the judge's rubrics ---------------------------------------------------------------------
# CRUX rates a (sub-question, passage or report) item 0-5 and stores a Judgment; UMBRELA grades a
# (query, passage) pair 0-3 and stores the judge's passage qrels.
UMBRELA = relevance_prompts.RUBRIC
RUBRICS: dict[str, str] = {
    CRUX: "CRUX 0-5 answerability of each (sub-question, passage) item",
    UMBRELA: "UMBRELA 0-3 relevance of each (query, passage) pair: the judge's qrels",
}
Prompt = RubricPrompt | RelevancePrompt
RUBRIC_PROMPTS: dict[str, dict[str, RubricPrompt] | dict[str, RelevancePrompt]] = {
    CRUX: PROMPTS,
    UMBRELA: relevance_prompts.PROMPTS,
}
DEFAULT_VERSIONS: dict[str, str] = {
    CRUX: DEFAULT_PROMPT_VERSION,
    UMBRELA: relevance_prompts.DEFAULT_VERSION,
}


def rubric_prompt(rubric: str, version: str) -> Prompt:
    """The prompt ``version`` of ``rubric``; a version of another rubric, or none, is refused."""
    if rubric not in RUBRIC_PROMPTS:
        raise ValueError(f"unknown rubric {rubric!r} (known: {', '.join(RUBRICS)})")
    prompts = RUBRIC_PROMPTS[rubric]
    if version not in prompts:
        known = ", ".join(sorted(prompts))
        raise ValueError(
            f"unknown prompt version {version!r} of the {rubric} rubric (known: {known})"
        )
    return prompts[version]
