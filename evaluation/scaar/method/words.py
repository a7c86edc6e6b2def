"""SCAAR's text units: sentences, words, and the alignment of generator tokens to words.

Plain Python (no Django, no model). A generated text arrives as its token strings (whose
concatenation is the text) with one log-probability per token. Words are the whitespace-
delimited pieces of the text, as the paper's ``Decode(T)`` word list (seed 002, Appendix B);
punctuation stays attached to its word ("Paris." is one word).

Token-to-word alignment follows Appendix B's adaptive window: starting at the first token not
yet used, the window grows one token at a time until its decoded text covers the next word,
then the span ``[first, last]`` is registered and the next window starts. Here the comparison
is made on character offsets (the window covers the word's characters) rather than on the
stripped decoded string, which is the same test for tokens that lie inside one word and stays
defined for the rare token that straddles two words (such a token belongs to both).
Whitespace-only tokens belong to no word.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

# A sentence ends after . ! or ? (with any closing quotes or brackets) followed by whitespace,
# or at a line break; what remains at the end of the text is the last sentence.
_SENTENCE_END = re.compile(r"([.!?][\"')\]]*)\s+|\n+")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Span:
    """Characters ``[start, end)`` of the text."""

    start: int
    end: int

    def of(self, text: str) -> str:
        return text[self.start : self.end]


@dataclass(frozen=True)
class AlignedWord:
    """A word, its character span, and the inclusive range of tokens that make it up."""

    text: str
    span: Span
    first_token: int
    last_token: int

    @property
    def n_tokens(self) -> int:
        return self.last_token - self.first_token + 1


def split_sentences(text: str) -> list[Span]:
    """Non-empty sentence spans, stripped of surrounding whitespace, in text order."""
    spans: list[Span] = []
    start = 0
    for boundary in _SENTENCE_END.finditer(text):
        end = boundary.end(1) if boundary.group(1) else boundary.start()
        _append_stripped(spans, text, start, end)
        start = boundary.end()
    _append_stripped(spans, text, start, len(text))
    return spans


def _append_stripped(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        lead = len(piece) - len(piece.lstrip())
        spans.append(Span(start + lead, start + lead + len(stripped)))


def split_words(text: str, within: Span | None = None) -> list[Span]:
    """Whitespace-delimited word spans of ``text`` (or of its part ``within``)."""
    start, end = (0, len(text)) if within is None else (within.start, within.end)
    return [Span(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]


def token_spans(tokens: Sequence[str]) -> list[Span]:
    """Character span of each token in the concatenated text."""
    spans, offset = [], 0
    for token in tokens:
        spans.append(Span(offset, offset + len(token)))
        offset += len(token)
    return spans


def align_words(tokens: Sequence[str], words: Sequence[Span]) -> list[AlignedWord]:
    """Appendix B: for each word (in order), the token window that covers its characters.

    ``words`` are spans of ``"".join(tokens)`` in increasing order. Raises ValueError when a
    word is not covered by the tokens (the words come from another text).
    """
    text = "".join(tokens)
    spans = token_spans(tokens)
    aligned: list[AlignedWord] = []
    cursor = 0  # the first token the next window may start at
    for word in words:
        if word.end > len(text) or word.start < 0 or word.start >= word.end:
            raise ValueError(
                f"word span {word.start}-{word.end} is not inside the {len(text)}-character "
                "text of the tokens"
            )
        first = cursor
        # A token that ends before the word starts (whitespace, the previous word) is skipped;
        # one that straddles the previous word and this one is shared (cursor stayed on it).
        while first < len(spans) and spans[first].end <= word.start:
            first += 1
        # Empty pieces (the first bytes of a multi-byte character) belong to the token after.
        while first > cursor and first < len(spans) and _empty_at(spans[first - 1], spans[first]):
            first -= 1
        last = first
        while last < len(spans) and spans[last].end < word.end:
            last += 1
        if first >= len(spans) or last >= len(spans):
            raise ValueError(f"word {word.of(text)!r} at {word.start} is not covered by the tokens")
        aligned.append(AlignedWord(word.of(text), word, first, last))
        cursor = last if spans[last].end > word.end else last + 1
    return aligned


def _empty_at(piece: Span, following: Span) -> bool:
    return piece.start == piece.end == following.start


def word_probability(token_logprobs: Sequence[float], word: AlignedWord) -> float:
    """Eq. 4-5: the product of the word's token probabilities to the power 1/|tokens|,
    i.e. the geometric mean of its token probabilities."""
    logprobs = token_logprobs[word.first_token : word.last_token + 1]
    if len(logprobs) != word.n_tokens:
        raise ValueError(
            f"word {word.text!r} spans tokens {word.first_token}-{word.last_token} but only "
            f"{len(token_logprobs)} log-probs were given"
        )
    return math.exp(sum(logprobs) / len(logprobs))
