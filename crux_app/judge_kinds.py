"""What a judge is, in words: its kind as pages list it, and whether it has a prompt to show.

The Judge model knows five kinds (LLM, human, ensemble, adjudicated, post-edited human); a
machine judge that is no LLM (the embedding baseline, stored with kind ``llm`` and its rubric's
version as "prompt version") is declared by its method in its ``MethodConfig`` as a
``JudgeKindLabel`` that recognises its prompt versions. Pages call ``kind_label`` /
``shown_prompt`` and never print the raw kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from crux_app.models import Judge
from crux_app.registry import Registry

KIND_LABELS = {
    Judge.Kind.LLM.value: "LLM",
    Judge.Kind.HUMAN.value: "human",
    Judge.Kind.ENSEMBLE.value: "ensemble",
    Judge.Kind.ADJUDICATED.value: "adjudicated",
    # A person who saw a machine judge's suggestion before labelling (a post-editing campaign).
    Judge.Kind.POST_EDITED.value: "human (post-edited)",
    # People's labels combined by a crowd model (Dawid-Skene and kin).
    Judge.Kind.AGGREGATED.value: "aggregated",
}


@dataclass(frozen=True)
class JudgeKindLabel:
    key: str
    label: str  # e.g. "embedding baseline"
    matches: Callable[[str, str], bool]  # (stored kind, prompt version) -> is one of these
    has_prompt: bool = False  # whether its prompt version is a prompt worth showing


_LABELS: Registry[JudgeKindLabel] = Registry("judge kind", (JudgeKindLabel,))


def _declared(kind: str, prompt_version: str) -> JudgeKindLabel | None:
    return next((e for e in _LABELS.ordered() if e.matches(kind, prompt_version or "")), None)


def kind_label(kind: str, prompt_version: str = "") -> str:
    """The judge's kind as pages list it (a declared machine kind wins over the stored one)."""
    declared = _declared(kind, prompt_version)
    if declared is not None:
        return declared.label
    return KIND_LABELS.get(kind, kind)


def shown_prompt(kind: str, prompt_version: str = "") -> str:
    """The prompt version a page shows ("" when the judge has no prompt, e.g. an embedder)."""
    declared = _declared(kind, prompt_version)
    if declared is not None and not declared.has_prompt:
        return ""
    return prompt_version or ""


def has_prompt(kind: str, prompt_version: str = "") -> bool:
    """Whether a judge of this kind has a prompt at all (an LLM; an embedder has none)."""
    declared = _declared(kind, prompt_version)
    if declared is not None:
        return declared.has_prompt
    return kind == Judge.Kind.LLM.value


def _field(judge: Any, name: str) -> str:
    value = judge.get(name) if isinstance(judge, Mapping) else getattr(judge, name, "")
    return str(value or "")


def judge_kind_label(judge: Any) -> str:
    """``kind_label`` of a Judge, a JudgeInfo or a mapping with ``kind`` / ``prompt_version``."""
    return kind_label(_field(judge, "kind"), _field(judge, "prompt_version"))


def judge_prompt(judge: Any) -> str:
    """``shown_prompt`` of a Judge, a JudgeInfo or a mapping."""
    return shown_prompt(_field(judge, "kind"), _field(judge, "prompt_version"))


def judge_has_prompt(judge: Any) -> bool:
    """``has_prompt`` of a Judge, a JudgeInfo or a mapping."""
    return has_prompt(_field(judge, "kind"), _field(judge, "prompt_version"))
