"""A rule-based generator for DENSE tests: rephrases from a table, answers by rules on the
context, and says "yes" to B.3 when the context holds a given word. Every call is recorded."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from evaluation.backends.base import Generation, GenerationParams
from evaluation.dense.method.prompts import NO_SPELLINGS, YES_SPELLINGS

QA = re.compile(r"^Answer question (?P<q>.*?) based on provided context.*?Context:(?P<c>.*)$", re.S)
REPHRASE = re.compile(r"Text: (?P<chunk>.*)$", re.S)
SELF_EVAL = re.compile(r"^Context: (?P<c>.*)\nQuestion: (?P<q>.*?)\nDoes the context", re.S)


def capital_rules(question: str, context: str) -> str:
    """'Lyon' when the context claims the capital is Lyon, else 'Paris' when Paris is named,
    else 'unknown'."""
    if "capital is Lyon" in context:
        return "Lyon"
    if "Paris" in context:
        return "Paris"
    return "unknown"


class RuleGenerator:
    model_id = "test/rule-generator"

    def __init__(
        self,
        rephrases: Mapping[str, str],
        answer: Callable[[str, str], str] = capital_rules,
        sufficient_word: str = "Paris",
    ) -> None:
        self.rephrases = dict(rephrases)
        self.answer_rule = answer
        self.sufficient_word = sufficient_word
        self.calls: list[list[str]] = []
        self.logprob_calls: list[list[str]] = []

    def generate(self, prompts: Sequence[str], params: GenerationParams) -> list[list[Generation]]:
        assert params.temperature == 0.0, "DENSE decodes greedily"
        self.calls.append(list(prompts))
        out = []
        for prompt in prompts:
            qa = QA.match(prompt)
            if qa:
                text = self.answer_rule(qa["q"], qa["c"])
            else:
                chunk = REPHRASE.search(prompt)
                assert chunk, f"unexpected prompt {prompt!r}"
                text = self.rephrases.get(chunk["chunk"], chunk["chunk"])
            out.append([Generation(text=f" {text}", finish_reason="stop")])
        return out

    def continuation_logprobs(self, prompts, candidates, use_chat_template=True) -> np.ndarray:
        self.logprob_calls.append(list(prompts))
        rows = []
        for prompt in prompts:
            match = SELF_EVAL.match(prompt)
            assert match, f"unexpected prompt {prompt!r}"
            yes = self.sufficient_word in match["c"]
            rows.append(
                [
                    (-0.1 if yes else -3.0) if c in YES_SPELLINGS else (-3.0 if yes else -0.1)
                    for c in candidates
                ]
            )
        assert all(c in YES_SPELLINGS + NO_SPELLINGS for c in candidates)
        return np.array(rows)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]


class WordEmbedder:
    """Bag-of-words vectors over a fixed vocabulary, L2-normalised (all-zero stays zero)."""

    model_id = "test/word-embedder"

    def __init__(self, dimension: int = 64) -> None:
        self.dimension = dimension
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, sum(map(ord, word)) % self.dimension] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out
