"""DENSE-RAG's adaptive semantic chunking (seed 003, Algorithm 2 / eq. 7).

A document is split into sentences; consecutive sentences are merged into one chunk while the
cosine similarity of sentence i and sentence i+1 is >= tau and the chunk stays within T_max
tokens; otherwise sentence i+1 opens a new chunk. The paper applies it only to uncertain
questions (tau = 0.6, T_max = 512 in its experiments). Embeddings and token counts are given
by the caller (the Embedder backend and a tokenizer), so this module is plain numpy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

DEFAULT_TAU = 0.6
DEFAULT_MAX_TOKENS = 512

# A sentence ends at . ! or ? (optionally followed by closing quotes or brackets) before
# whitespace; newlines always end one.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"')\]])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """The text's sentences, stripped, empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def semantic_groups(
    embeddings: np.ndarray,
    token_counts: Sequence[int],
    tau: float = DEFAULT_TAU,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> list[list[int]]:
    """Algorithm 2 on one document: the sentence indices of each chunk, in order."""
    e = np.asarray(embeddings, dtype=float)
    n = len(token_counts)
    if e.ndim != 2 or e.shape[0] != n:
        raise ValueError(f"{e.shape[0] if e.ndim == 2 else e.shape} embeddings for {n} sentences")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    if n == 0:
        return []
    groups = [[0]]
    current = int(token_counts[0])
    for i in range(n - 1):
        following = int(token_counts[i + 1])
        if cosine(e[i], e[i + 1]) >= tau and current + following <= max_tokens:
            groups[-1].append(i + 1)
            current += following
        else:
            groups.append([i + 1])
            current = following
    return groups


def semantic_chunks(
    sentences: Sequence[str],
    embeddings: np.ndarray,
    token_counts: Sequence[int],
    tau: float = DEFAULT_TAU,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> list[str]:
    """The chunk texts of one document's sentences (joined with a space)."""
    if len(sentences) != len(token_counts):
        raise ValueError(f"{len(token_counts)} token counts for {len(sentences)} sentences")
    groups = semantic_groups(embeddings, token_counts, tau, max_tokens)
    return [" ".join(sentences[i] for i in group) for group in groups]
