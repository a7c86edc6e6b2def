"""Lexical answer matching as in open-QA evaluation (SQuAD / EVOUNA normalisation).

normalise: lowercase, drop punctuation (any Unicode punctuation character), drop the articles
"a", "an", "the", collapse whitespace. Exact match: the normalised answer equals a normalised
gold. Lexical match (EVOUNA's baseline): a normalised gold occurs in the normalised answer.
We require whole words ("cat" does not match "concatenate"), and a gold that normalises to
nothing (e.g. "The") never matches, since the empty string occurs in every answer.
"""

import re
import unicodedata
from collections.abc import Iterable

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def _strip_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def normalize_answer(text: str) -> str:
    """Lowercase, no punctuation, no articles, single spaces."""
    text = _strip_punctuation(text.lower())
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(answer: str, golds: Iterable[str]) -> bool:
    """The normalised answer equals some non-empty normalised gold answer."""
    normalized = normalize_answer(answer)
    return any(g and g == normalized for g in map(normalize_answer, golds))


def lexical_match(answer: str, golds: Iterable[str]) -> bool:
    """Some non-empty normalised gold answer occurs, as whole words, in the normalised answer."""
    padded = f" {normalize_answer(answer)} "
    return any(g and f" {g} " in padded for g in map(normalize_answer, golds))
