"""Say when SePer says nothing: on a topic (or one of its sub-questions), every Delta-SePer is
<= 0, the gold passages' included. The check is ``evaluation.shared.degenerate``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from evaluation.seper.models import SeperScore
from evaluation.shared.degenerate import JudgeWarning, no_context_gain

ORACLE = SeperScore.ContextKind.ORACLE.value


class ScoredContext(Protocol):
    kind: str
    delta_s: float | None
    delta_h: float | None


def models_name(generator: str, nli: str) -> str:
    """Who SePer's numbers rest on: the receiver (generator) and the NLI model."""
    return f"SePer with generator {generator} and NLI {nli}"


def no_gain_warnings(
    who: str, rows: Sequence[ScoredContext], scope: str, link: str
) -> list[JudgeWarning]:
    """One warning per variant (soft, hard) whose every Delta is <= 0 with a gold context."""
    out = []
    for measure, attribute in (("ΔSePer_S", "delta_s"), ("ΔSePer_H", "delta_h")):
        deltas = [getattr(r, attribute) for r in rows if r.kind != ORACLE]
        gold = [getattr(r, attribute) for r in rows if r.kind == ORACLE]
        warning = no_context_gain(who, deltas + gold, gold, measure=measure, scope=scope)
        if warning is not None:
            out.append(warning.linked(link, "the scores per context"))
    return out
