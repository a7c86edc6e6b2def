"""LLM-retEval's prompts (seed 004, Appendix A) and the judge's Yes/No parser.

Figure 2 is the answer prompt, used for the RAG answer (the run's top-k) and for the semi-gold
answers (the gold passages) alike, so the two differ only in their context. Figure 3 is
"CompareGPT", the judge that says whether a prediction matches ground-truth answers. The prompt
version is part of every stored verdict's identity: a wording change is a new version.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PROMPT_VERSION = "reteval-fig2-fig3-v1"

ANSWER_TEMPLATE = (
    "Please read the question provided below and then review the accompanying document "
    "excerpts. Your task is to answer the question using the information from the documents:\n"
    "\n"
    "Question: {question}\n"
    "\n"
    "Relevant Document chunks:\n"
    "{context}\n"
    "\n"
    "After considering the information in the documents, please provide an answer "
    "(maximum 5 tokens) to the question: {question}.\n"
    "\n"
    "Answer:"
)

COMPARE_TEMPLATE = (
    "You are CompareGPT, a machine to verify the correctness of predictions. "
    'Answer with only "Yes" or "No".\n'
    "\n"
    "You are given a question, one or more corresponding ground-truth answers, and a prediction "
    'from a model. Compare the "Ground-truth_answers" and the "Prediction" to determine whether '
    "the prediction correctly answers the question based on any of the provided ground-truth "
    "answers.\n"
    "\n"
    "All information in at least one of the ground-truth answers must be present in the "
    'prediction, including numbers and dates. You must answer "No" if the prediction does not '
    "completely match at least one set of specific details in the ground-truth answers. There "
    "should be no contradicting statements in the prediction. The prediction may contain extra "
    "information that does not contradict the ground-truth answers.\n"
    "\n"
    "Question: {question}\n"
    "\n"
    "Ground-truth answers: {answers}\n"
    "\n"
    "Prediction: {prediction}\n"
    "\n"
    'Answer "Yes" if the prediction correctly answers the question based on any of the '
    'Ground-truth answers, otherwise answer "No".'
)

# The judge's decoding: greedy, a few tokens are enough for "Yes" / "No".
JUDGE_MAX_NEW_TOKENS = 4

_VERDICT = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def build_reteval_answer_prompt(question: str, context: Sequence[str] = ()) -> str:
    """Figure 2 with the passages one per line (empty passages left out)."""
    passages = "\n".join(text.strip() for text in context if text.strip())
    return ANSWER_TEMPLATE.format(question=question.strip(), context=passages)


def build_compare_prompt(question: str, answers: Sequence[str], prediction: str) -> str:
    """Figure 3; several ground-truth answers are joined with " | "."""
    cleaned = [a.strip() for a in answers if a.strip()]
    if not cleaned:
        raise ValueError("CompareGPT needs at least one non-empty ground-truth answer")
    return COMPARE_TEMPLATE.format(
        question=question.strip(), answers=" | ".join(cleaned), prediction=prediction.strip()
    )


def parse_verdict(raw_output: str) -> bool | None:
    """The first standalone "yes" or "no" (any case) in the judge's output; None if neither."""
    match = _VERDICT.search(raw_output)
    if match is None:
        return None
    return match.group(1).lower() == "yes"
