"""DENSE's prompts (seed 003, appendix B), word for word.

B.2 (the NLI prompt) lives with the LLM NLI backend (``evaluation.backends.nli_llm_prompt``,
``NLI_PROMPT``), which is the NLI judge DENSE uses by default (not re-exported: this pure part
imports no backend).
"""

from __future__ import annotations

from collections.abc import Sequence

# B.1: rephrase one chunk on its own.
REPHRASE_PROMPT = (
    "Rewrite the following text at the syntactic level without changing its meaning. "
    "Modify the sentence structure, but preserve the original intent and semantic meaning. "
    "ONLY return the rewritten content without any additional token. Text: {chunk}"
)

# B.3: does the context suffice?
SELF_EVALUATION_PROMPT = (
    "Context: {context}\n"
    "Question: {question}\n"
    "Does the context contain enough information to answer the question? Only answer yes or no."
)

# B.4: the short-answer QA prompt.
QA_PROMPT = (
    "Answer question {query} based on provided context, ONLY output a short answer with "
    "minimum words. Context:{context}"
)

# The spellings whose continuation probabilities decide B.3's yes / no.
YES_SPELLINGS: tuple[str, ...] = ("yes", "Yes")
NO_SPELLINGS: tuple[str, ...] = ("no", "No")


def join_chunks(chunks: Sequence[str]) -> str:
    """The context text: the chunks' stripped texts, one per line, in context order."""
    return "\n".join(c.strip() for c in chunks if c.strip())


def rephrase_prompt(chunk: str) -> str:
    return REPHRASE_PROMPT.format(chunk=chunk.strip())


def qa_prompt(question: str, chunks: Sequence[str]) -> str:
    return QA_PROMPT.format(query=question.strip(), context=join_chunks(chunks))


def self_evaluation_prompt(question: str, chunks: Sequence[str]) -> str:
    return SELF_EVALUATION_PROMPT.format(context=join_chunks(chunks), question=question.strip())
