"""SCAAR: semantic-contribution-aware retrieval triggers and queries (seed 002, METHODS 4).

Plain Python. For a question q and each sentence s = [w_1..w_n] of a generated answer:

- contribution r(w_i) = 1 - sim([q, s], [q, s without w_i]) with a similarity in [0, 1]
  (the paper's cross-encoder; the app's offline default is the embedder's cosine, clipped);
- normalised contribution r'(w_i) = n * r(w_i) / sum_j r(w_j) (Eq. 2; all 1 when every r is 0);
- word probability = geometric mean of its tokens' probabilities (``scaar_words``);
- threshold theta(w_i) = exp(weight_i) * theta_0 (Eq. 3). The default weight is the raw r in
  [0, 1], as Eq. 3 is printed; ``weighting="normalised"`` uses r' as METHODS words it. With r'
  the mean weight is 1, so an average word's threshold is e * theta_0 > 1: every sentence of
  two or more words triggers, and PFQ, which drops words below threshold, keeps almost none
  of the high-r' words, so its query is the bare question. Raw r keeps thresholds in
  [theta_0, e * theta_0], highest for the words that carry the meaning;
- the sentence triggers retrieval when some word's probability is below its threshold;
- the percentile-filtered query (Algorithm 1): the words with the top ``alpha`` share of r'
  (ceil(alpha * n) words, ties by position), minus those below their own threshold, appended
  to q in decreasing order of r'. (Algorithm 1's line 7 prints "r > theta"; METHODS reads it
  as "the word is not itself below threshold", which is what is implemented.)

FLARE on the same answer: every word's threshold is theta_0; its query is the sentence with
the words below threshold masked out (FLARE's masked query, at word level as the paper does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from evaluation.scaar.method.words import (
    align_words,
    split_sentences,
    split_words,
    word_probability,
)

WEIGHTINGS = ("raw", "normalised")


@dataclass(frozen=True)
class ScaarSettings:
    theta0: float = 0.8
    alpha: float = 0.5  # the share of a sentence's words PFQ keeps before its filter
    weighting: str = "raw"

    def __post_init__(self) -> None:
        if not 0 < self.theta0 <= 1:
            raise ValueError(f"theta0 must be in (0, 1], got {self.theta0!r}")
        if not 0 < self.alpha <= 1:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha!r}")
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {self.weighting!r}")


@dataclass(frozen=True)
class SentenceWords:
    """One sentence of an answer: its words, their probabilities and token counts."""

    text: str
    words: tuple[str, ...]
    probabilities: tuple[float, ...]
    n_tokens: tuple[int, ...]


@dataclass
class SentenceAnalysis:
    text: str
    words: list[str]
    n_tokens: list[int]
    probabilities: list[float]
    contributions: list[float]  # r
    normalised: list[float]  # r'
    thresholds: list[float]
    below: list[bool]
    triggered: bool
    query: str
    query_words: list[int]  # indices of the words PFQ kept, in query order
    flare_below: list[bool]
    flare_triggered: bool
    flare_query: str


@dataclass
class AnswerAnalysis:
    question: str
    settings: ScaarSettings
    sentences: list[SentenceAnalysis] = field(default_factory=list)

    @property
    def n_retrievals(self) -> int:
        """N_R: the sentences that trigger retrieval."""
        return sum(s.triggered for s in self.sentences)

    @property
    def flare_retrievals(self) -> int:
        return sum(s.flare_triggered for s in self.sentences)

    def to_dict(self) -> dict:
        return {
            "question": self.question,
            "settings": asdict(self.settings),
            "n_retrievals": self.n_retrievals,
            "flare_retrievals": self.flare_retrievals,
            "sentences": [asdict(s) for s in self.sentences],
        }


def segment_answer(tokens: Sequence[str], token_logprobs: Sequence[float]) -> list[SentenceWords]:
    """Sentences of ``"".join(tokens)`` with their words' probabilities (Appendix B alignment)."""
    if len(tokens) != len(token_logprobs):
        raise ValueError(
            f"{len(tokens)} tokens but {len(token_logprobs)} log-probs: they must pair up"
        )
    text = "".join(tokens)
    sentence_spans = split_sentences(text)
    word_spans = [split_words(text, s) for s in sentence_spans]
    aligned = align_words(tokens, [w for words in word_spans for w in words])
    sentences, start = [], 0
    for span, words in zip(sentence_spans, word_spans, strict=True):
        mine = aligned[start : start + len(words)]
        start += len(words)
        sentences.append(
            SentenceWords(
                text=span.of(text),
                words=tuple(w.text for w in mine),
                probabilities=tuple(word_probability(token_logprobs, w) for w in mine),
                n_tokens=tuple(w.n_tokens for w in mine),
            )
        )
    return sentences


def leave_one_out_texts(question: str, words: Sequence[str]) -> list[str]:
    """``[q, s]`` then ``[q, s without w_i]`` for each word: the texts the similarity compares."""
    q = question.strip()
    texts = [" ".join([q, *words]).strip()]
    for i in range(len(words)):
        texts.append(" ".join([q, *words[:i], *words[i + 1 :]]).strip())
    return texts


def contributions(similarities: Sequence[float]) -> np.ndarray:
    """Eq. 1: r = 1 - sim, the similarity clipped to [0, 1]."""
    return 1.0 - np.clip(np.asarray(similarities, dtype=np.float64), 0.0, 1.0)


def normalise(r: Sequence[float]) -> np.ndarray:
    """Eq. 2: r' = n * r / sum(r); every word counts 1 when no word changes the meaning."""
    values = np.asarray(r, dtype=np.float64)
    total = values.sum()
    if values.size == 0 or total <= 0:
        return np.ones_like(values)
    return values.size * values / total


def thresholds(weights: Sequence[float], theta0: float) -> np.ndarray:
    """Eq. 3: theta(w) = exp(weight(w)) * theta_0."""
    return np.exp(np.asarray(weights, dtype=np.float64)) * theta0


def percentile_filtered_query(
    question: str,
    words: Sequence[str],
    normalised_contributions: Sequence[float],
    below: Sequence[bool],
    alpha: float,
) -> tuple[str, list[int]]:
    """Algorithm 1: q plus the top-alpha words by r' that are not below their threshold."""
    n = len(words)
    order = sorted(range(n), key=lambda i: (-normalised_contributions[i], i))
    top = order[: math.ceil(alpha * n)] if n else []
    kept = [i for i in top if not below[i]]
    return " ".join([question.strip(), *(words[i] for i in kept)]).strip(), kept


def flare_masked_query(words: Sequence[str], below: Sequence[bool]) -> str:
    """FLARE's masked query: the sentence without its low-confidence words."""
    return " ".join(w for w, low in zip(words, below, strict=True) if not low)


def analyse_sentence(
    question: str,
    sentence: SentenceWords,
    similarities: Sequence[float],
    settings: ScaarSettings,
) -> SentenceAnalysis:
    """Thresholds, trigger and queries of one sentence, given sim([q,s], [q,s without w_i])."""
    n = len(sentence.words)
    if len(similarities) != n:
        raise ValueError(f"sentence of {n} words needs {n} similarities, got {len(similarities)}")
    r = contributions(similarities)
    r_norm = normalise(r)
    weights = r if settings.weighting == "raw" else r_norm
    theta = thresholds(weights, settings.theta0)
    probs = np.asarray(sentence.probabilities, dtype=np.float64)
    below = [bool(x) for x in probs < theta]
    query, kept = percentile_filtered_query(question, sentence.words, r_norm, below, settings.alpha)
    flare_below = [bool(x) for x in probs < settings.theta0]
    return SentenceAnalysis(
        text=sentence.text,
        words=list(sentence.words),
        n_tokens=list(sentence.n_tokens),
        probabilities=[float(p) for p in probs],
        contributions=[float(x) for x in r],
        normalised=[float(x) for x in r_norm],
        thresholds=[float(x) for x in theta],
        below=below,
        triggered=any(below),
        query=query,
        query_words=kept,
        flare_below=flare_below,
        flare_triggered=any(flare_below),
        flare_query=flare_masked_query(sentence.words, flare_below),
    )


def analyse_answer(
    question: str,
    sentences: Sequence[SentenceWords],
    similarities: Sequence[Sequence[float]],
    settings: ScaarSettings,
) -> AnswerAnalysis:
    """Every sentence of an answer; ``similarities[k]`` belongs to ``sentences[k]``."""
    if len(similarities) != len(sentences):
        raise ValueError(
            f"{len(sentences)} sentences but {len(similarities)} similarity lists were given"
        )
    return AnswerAnalysis(
        question=question,
        settings=settings,
        sentences=[
            analyse_sentence(question, s, sims, settings)
            for s, sims in zip(sentences, similarities, strict=True)
        ],
    )
