"""Say when LLM-retEval says nothing: LLM-retEval@k is the same on every (run, k) row (or 1.0 on
the only one) while the answers' lexical accuracy differs. The check is
``evaluation.shared.degenerate``'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluation.shared.degenerate import JudgeWarning, same_everywhere

TABLE_ANCHOR = "#reteval-table"


def saturation_warnings(judge: str, records: Sequence[Mapping[str, object]]) -> list[JudgeWarning]:
    """The table's rows (``table.row_dict``): one warning when LLM-retEval@k cannot tell them
    apart although answer accuracy can."""
    rows = [r for r in records if r.get("questions")]
    label = {id(r): f"{r['run']} k={r['k']}" for r in rows}
    scores = {label[id(r)]: r.get("llm_reteval") for r in rows}
    accuracy = {label[id(r)]: r.get("answer_accuracy_lexical") for r in rows}
    warning = same_everywhere(
        f"LLM-retEval judge {judge}", "LLM-retEval@k", scores, accuracy, "answer accuracy"
    )
    return [warning.linked(TABLE_ANCHOR, "the table")] if warning else []
