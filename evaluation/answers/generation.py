"""Short-answer RAG generation: prompts, system names, and one greedy answer per question.

Plain Python (no Django): the job that stores answers (``evaluation.answers.job``) feeds it
questions with their context passages and a generator implementing ``backends.base.Generator``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from evaluation.backends.base import Generation, GenerationParams, Generator
from evaluation.backends.checked_generation import first_samples

ANSWER_INSTRUCTION = "Answer the following question as briefly as possible."
CLOSED_BOOK = "closed-book"
DEFAULT_K = 5
DEFAULT_MAX_NEW_TOKENS = 32

# (question, context passage texts) -> prompt; methods with their own wording pass one.
PromptBuilder = Callable[[str, Sequence[str]], str]


@dataclass(frozen=True)
class ContextPassage:
    key: str  # the caller's id for the passage, handed back untouched
    text: str


@dataclass(frozen=True)
class AnswerRequest:
    key: str  # the caller's id for the answer (e.g. its external id)
    question: str
    context: tuple[ContextPassage, ...] = ()


@dataclass(frozen=True)
class Answer:
    request: AnswerRequest
    prompt: str
    generation: Generation


def build_answer_prompt(question: str, context: Sequence[str] = ()) -> str:
    """SePer's short-answer prompt; the Context line is left out when there is no context."""
    lines = [ANSWER_INSTRUCTION]
    passages = [text.strip() for text in context if text.strip()]
    if passages:
        lines.append("Context: " + "\n".join(passages))
    lines += [f"Question: {question.strip()}", "Answer:"]
    return "\n".join(lines)


def answer_system_name(run_name: str | None, k: int) -> str:
    """``rag:{run}@{k}`` for answers from a run's top-k passages, ``closed-book`` without."""
    return CLOSED_BOOK if run_name is None else f"rag:{run_name}@{k}"


def answer_external_id(system: str, topic_external_id: str) -> str:
    """Deterministic, so a re-run finds the answer it stored before instead of adding one."""
    return f"{system}/{topic_external_id}"


def greedy_answer_params(max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS) -> GenerationParams:
    """One greedy answer that stops at the end of its line."""
    return GenerationParams(
        max_new_tokens=max_new_tokens, temperature=0.0, num_samples=1, stop=("\n",)
    )


def generate_answers(
    requests: Sequence[AnswerRequest],
    generator: Generator,
    params: GenerationParams,
    build_prompt: PromptBuilder = build_answer_prompt,
) -> list[Answer]:
    """One generation per request (the first sample), in request order, in one batched call."""
    if not requests:
        return []
    prompts = [build_prompt(r.question, [p.text for p in r.context]) for r in requests]
    generations = first_samples(generator, prompts, params)
    answers = []
    for request, prompt, generation in zip(requests, prompts, generations, strict=True):
        answers.append(Answer(request=request, prompt=prompt, generation=generation))
    return answers
