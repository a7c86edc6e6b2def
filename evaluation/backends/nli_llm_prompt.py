"""Offline NLI default: DENSE's LLM NLI prompt (appendix B.2) scored on a generator.

A free-running small model mostly echoes the prompt, so instead of parsing an answer the three
label words are scored as continuations of the prompt and their probabilities renormalised.
"""

from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp, softmax

from evaluation.backends import token_usage
from evaluation.backends.base import NLI_LABELS, Generator

# DENSE appendix B.2, with the question clause made optional.
NLI_PROMPT = (
    "We are evaluating answers to the question {question} Here are two possible answers:\n"
    "Possible Answer 1: {premise}\n"
    "Possible Answer 2: {hypothesis}\n"
    "Does Possible Answer 1 semantically entail Possible Answer 2? "
    "Respond with ONLY entailment, contradiction, or neutral."
)
NO_QUESTION_PROMPT = NLI_PROMPT.replace("to the question {question} ", "to a question. ")

# Spellings summed into each label's probability (the model may capitalise its answer).
LABEL_SPELLINGS: dict[str, tuple[str, ...]] = {
    label: (label, label.capitalize()) for label in NLI_LABELS
}


def nli_prompt(premise: str, hypothesis: str, question: str | None = None) -> str:
    if question:
        return NLI_PROMPT.format(question=question, premise=premise, hypothesis=hypothesis)
    return NO_QUESTION_PROMPT.format(premise=premise, hypothesis=hypothesis)


class LLMPromptNLI:
    """``NLIModel`` answering the B.2 prompt by the label words' continuation log-probs."""

    def __init__(self, generator: Generator) -> None:
        self.generator = generator
        self.model_id = f"llm-nli:{generator.model_id}"
        self.candidates = [s for label in NLI_LABELS for s in LABEL_SPELLINGS[label]]

    def predict(
        self, pairs: Sequence[tuple[str, str]], questions: Sequence[str | None] | None = None
    ) -> np.ndarray:
        """(premise, hypothesis) pairs -> (n, 3) probabilities in ``NLI_LABELS`` order."""
        if questions is not None and len(questions) != len(pairs):
            raise ValueError(f"{len(questions)} questions for {len(pairs)} NLI pairs")
        if not pairs:
            return np.zeros((0, len(NLI_LABELS)))
        qs = questions if questions is not None else [None] * len(pairs)
        prompts = [nli_prompt(p, h, q) for (p, h), q in zip(pairs, qs, strict=True)]
        with token_usage.acting_as(token_usage.NLI):  # whatever else the generator does
            scores = self.generator.continuation_logprobs(prompts, self.candidates)
        # Columns are grouped per label in candidate order; sum spellings' probabilities.
        per_label = scores.reshape(len(pairs), len(NLI_LABELS), -1)
        return softmax(logsumexp(per_label, axis=-1), axis=-1)
