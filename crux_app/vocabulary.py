"""The words the human side (annotation) and the machine side (evaluation) share, defined once.

Plain Python (stdlib only, no Django): pure-math modules under ``evaluation/*/method`` may import
it. Everything here is read, never copied: the judge's prompt and the annotators' rubric, the
LLM-retEval pre-labels and the annotators' failure categories, the importer that writes gold
passages and the methods that read them all use these names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

# ---- CRUX's 0-5 answerability rubric (METHODS section 1) ---------------------------------------
# The judge's prompt is built from this wording and its version is part of a judge's identity:
# rewording a level changes the prompt, which then needs a new prompt version.


class RubricLevel(NamedTuple):
    rating: int
    text: str


RUBRIC_LEVELS: tuple[RubricLevel, ...] = (  # highest first, as the prompt lists them
    RubricLevel(
        5, "The context is highly relevant, complete, and accurate for answering the question."
    ),
    RubricLevel(
        4, "The context is mostly relevant and complete but may have minor gaps or inaccuracies."
    ),
    RubricLevel(
        3,
        "The context is partially relevant and complete, with noticeable gaps or inaccuracies.",
    ),
    RubricLevel(
        2,
        "The context has limited relevance and completeness, with significant gaps or "
        "inaccuracies.",
    ),
    RubricLevel(1, "The context is minimally relevant or complete, with substantial shortcomings."),
    RubricLevel(0, "The context is not relevant or complete at all."),
)
RATINGS = range(0, 6)
# The answerability threshold tau on that scale: a rating >= tau answers. The read side declares
# it from these (``crux_app.read_parameters``) and the pure metrics refuse what lies outside.
DEFAULT_TAU = 3.0
MIN_TAU = 0.5
MAX_TAU = 5.0

# ---- LLM-retEval's retrieval-failure taxonomy (METHODS section 5) -------------------------------
# A-C: Recall@k is wrong (LLM-retEval right); D-F: LLM-retEval is wrong.


class FailureCategory(NamedTuple):
    letter: str
    short_name: str  # for tables and plots, after the letter
    description: str  # what an annotator chooses from


FAILURE_TAXONOMY: tuple[FailureCategory, ...] = (
    FailureCategory(
        "A",
        "unlabelled correct passage",
        "Unlabelled correct passage retrieved (the retriever found a valid passage the gold "
        "labels miss)",
    ),
    FailureCategory(
        "B",
        "other version of gold passage",
        "Different version of the gold passage retrieved (same content, other id)",
    ),
    FailureCategory(
        "C",
        "distracting passage",
        "Distracting passage alongside the gold one (recall credit, but the answer is wrong)",
    ),
    FailureCategory(
        "D", "generator fails on gold", "The generator fails even on the gold passages"
    ),
    FailureCategory("E", "semi-gold misses answers", "The semi-gold answer misses valid answers"),
    FailureCategory("F", "judge compares wrongly", "The judge compared the answers wrongly"),
)
FAILURE_LETTERS: tuple[str, ...] = tuple(c.letter for c in FAILURE_TAXONOMY)
# Letter -> description (the annotators' choices) and letter -> "A short name" (table labels).
FAILURE_CATEGORIES: dict[str, str] = {c.letter: c.description for c in FAILURE_TAXONOMY}
FAILURE_SHORT_NAMES: dict[str, str] = {
    c.letter: f"{c.letter} {c.short_name}" for c in FAILURE_TAXONOMY
}

# ---- Source names and naming conventions ----------------------------------------------------
# The passage qrels a QA file's gold contexts become (crux_app.dataio.imports.qa): the gold
# passages of LLM-retEval, SePer's oracle context and annotation task 4 all read these.
QA_GOLD_SOURCE = "qa_gold"
# A *semi-gold* answer is a generated answer (kind ``answer``) whose system name starts with this
# prefix: generated from the gold passages, LLM-retEval's reference answer. Such outputs are
# references, never annotation items of their own.
SEMI_GOLD_PREFIX = "semi-gold"


# ---- A sampled repeat of a judge ---------------------------------------------------------------
# A repeat is the judge (same model, same prompt version) decoding at a temperature with one
# seed; its prompt version carries the sampling settings, so the judging job (which names it)
# and the judge report (which finds a judge's repeats) read one format.
MAX_TEMPERATURE = 2.0
_REPEAT = re.compile(r"^(?P<base>.+)~t(?P<temperature>\d+(?:\.\d+)?)-s(?P<seed>\d+)$")


@dataclass(frozen=True)
class RepeatVersion:
    base: str  # the greedy judge's prompt version
    temperature: float
    seed: int


def repeat_version(base: str, temperature: float, seed: int) -> str:
    """The prompt version of the judge ``base`` sampled at ``temperature`` with ``seed``."""
    if not 0 < temperature <= MAX_TEMPERATURE or round(temperature, 2) != temperature:
        raise ValueError(
            f"temperature must lie in (0, {MAX_TEMPERATURE:g}] with at most 2 decimals, "
            f"got {temperature!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if not base or parse_repeat_version(base) is not None:
        raise ValueError(f"{base!r} is not a greedy judge's prompt version")
    return f"{base}~t{temperature:g}-s{seed}"


def parse_repeat_version(version: str) -> RepeatVersion | None:
    """(base version, temperature, seed) of a repeat's prompt version; None for any other."""
    match = _REPEAT.match(version)
    if match is None:
        return None
    return RepeatVersion(match["base"], float(match["temperature"]), int(match["seed"]))


def key_range(keys: tuple[str, ...] | range) -> str:
    """How the workspace names a run of answer keys: ``0-5``, ``a-f``."""
    first, last = str(keys[0]).lower(), str(keys[-1]).lower()
    return f"{first}-{last}"


# ---- A judge that barely tells the items apart -------------------------------------------------
# One definition for the default-judge rule (crux_app.judge_choice: never a nearly constant judge
# while another is there) and for the warnings beside the numbers (evaluation.shared.degenerate).

CONSTANT_SHARE = 0.9  # one value on more than this share of the items
ENTROPY_FLOOR = 0.2  # normalised entropy of the rating histogram under this
MIN_ITEMS = 10  # fewer parsed ratings say too little to call a judge constant
RATING_LEVELS = 6  # CRUX's 0-5 rubric


@dataclass(frozen=True)
class Spread:
    """How a judge's parsed ratings spread over the values."""

    n: int
    counts: dict[float, int]  # value -> items, by value
    top: float | None  # the most frequent value (the lowest on a tie)
    top_count: int
    entropy: float | None  # Shannon entropy / log(levels); None without a rating

    @property
    def share(self) -> float | None:
        return self.top_count / self.n if self.n else None


def spread(counts: Mapping[float, int], levels: int = RATING_LEVELS) -> Spread:
    """The spread of a rating histogram (value -> count; zero counts allowed)."""
    if levels < 2:
        raise ValueError(f"levels must be >= 2, got {levels}")
    if any(c < 0 for c in counts.values()):
        raise ValueError("counts must not be negative")
    kept = {v: int(c) for v, c in sorted(counts.items()) if c > 0}
    n = sum(kept.values())
    if n == 0:
        return Spread(0, {}, None, 0, None)
    top = min(kept, key=lambda v: (-kept[v], v))
    entropy = -sum((c / n) * math.log(c / n) for c in kept.values()) / math.log(levels)
    return Spread(n, kept, top, kept[top], max(0.0, entropy))


def nearly_constant(
    counts: Mapping[float, int],
    *,
    levels: int = RATING_LEVELS,
    share: float = CONSTANT_SHARE,
    entropy_floor: float = ENTROPY_FLOOR,
    min_items: int = MIN_ITEMS,
) -> bool:
    """Whether one value has more than ``share`` of at least ``min_items`` ratings, or their
    normalised entropy is under ``entropy_floor``."""
    s = spread(counts, levels)
    if s.n < min_items or s.share is None or s.entropy is None:
        return False
    return s.share > share or s.entropy < entropy_floor
