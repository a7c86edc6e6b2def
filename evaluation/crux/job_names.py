"""How the judging jobs read in lists: greedy, distribution, sampled and UMBRELA judging each
have their own name, and their parameters a short description (``JobKind.title`` /
``describe``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluation.crux.judge_scope import OUTPUTS, RUN
from evaluation.crux.method.judge_prompts import UMBRELA
from evaluation.crux.params import DISTRIBUTION, EMBEDDING

ANSWERABILITY = "Judge answerability"
UMBRELA_TITLE = "Grade passages 0-3 (UMBRELA)"


def _sampled(params: Mapping[str, Any]) -> str:
    temperature = params.get("temperature") or 0
    if not isinstance(temperature, int | float) or temperature <= 0:
        return ""
    return f"sampled at T={temperature:g}, seed {params.get('seed') or 0}"


def judging_title(params: Mapping[str, Any]) -> str:
    """ "Judge answerability (greedy)", "... (distribution)", "... (sampled at T=0.7, seed 1)",
    "Grade passages 0-3 (UMBRELA)", "Judge by embedding (baseline)"."""
    sampled = _sampled(params)
    if params.get("rubric") == UMBRELA:
        return f"{UMBRELA_TITLE[:-1]}, {sampled})" if sampled else UMBRELA_TITLE
    method = params.get("method")
    if method == EMBEDDING:
        return "Judge by embedding (baseline)"
    if method == DISTRIBUTION:
        return f"{ANSWERABILITY} (distribution)"
    return f"{ANSWERABILITY} ({sampled or 'greedy'})"


def judging_description(params: Mapping[str, Any]) -> str:
    """ "pooled top-10 of every run", "run bm25, top-10", "generated reports"; the model and a
    sample when the job names them."""
    k = params.get("k")
    scope = params.get("scope")
    if scope == OUTPUTS:
        parts = ["generated reports"]
    elif scope == RUN:
        parts = [f"run {params.get('run') or params.get('run_id')}, top-{k}"]
    else:
        parts = [f"pooled top-{k} of every run and the qrels"]
    if params.get("sample_size"):
        parts.append(f"a sample of {params['sample_size']} items")
    if params.get("model"):
        parts.append(f"model {params['model']}")
    return ", ".join(parts)
