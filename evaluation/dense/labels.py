"""Storing a researcher's judgment of a DENSE decision, beside the machine's decision."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from crux_app.judges import researcher_judge
from evaluation.dense.models import DenseLabel, DenseResult


def machine_decision(result: DenseResult, kind: str, i: int, j: int) -> bool | None:
    """What the machine decided: lexical match with gold (answer), the NLI judge's entailment
    both ways (rephrase of chunk i, 1-based), W[i][j] = 1 (two responses)."""
    d = result.detail
    if kind == DenseLabel.Kind.ANSWER_CORRECT:
        return result.correct
    if kind == DenseLabel.Kind.REPHRASE_FAITHFUL:
        faithful = d.get("rephrase_faithful") or []
        return bool(faithful[i - 1]) if 0 < i <= len(faithful) else None
    return bool(d["W"][i][j] == 1.0)


def record_label(
    user: AbstractBaseUser, result: DenseResult, kind: str, i: int, j: int, value: bool
) -> tuple[DenseLabel, bool]:
    """update_or_create the label of the user's human judge; returns it and whether it is new."""
    return DenseLabel.objects.update_or_create(
        judge=researcher_judge(user),
        result=result,
        kind=kind,
        i=i,
        j=j,
        defaults={"value": value, "machine_decision": machine_decision(result, kind, i, j)},
    )
