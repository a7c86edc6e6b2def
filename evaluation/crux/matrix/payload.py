"""What the matrix page hands its script (``static/js/matrix.js``): the figure, the ids and
names behind each row and column, every judge's code of every cell (the hover names them all),
and the cells the ``n`` key visits."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from evaluation.crux.matrix.figure import (
    GRADE_LABELS,
    MARKS,
    cell_label,
    column_label,
    matrix_figure,
)
from evaluation.crux.matrix.matrix import Disagreement, TopicMatrix


def attention(matrix: TopicMatrix) -> list[list[Any]]:
    """[row, column, why] of each cell worth a look, in reading order: no parsed rating from
    the selected judge, or a human's rating marked against it (the worst mark names it)."""
    out: list[list[Any]] = []
    for r, c in matrix.attention_cells():
        level = int(matrix.disagreement[r, c])
        why = [cell_label(int(matrix.codes[r, c]))] if matrix.codes[r, c] < 0 else []
        if level > Disagreement.NONE:
            why.append(MARKS[Disagreement(level)][0])
        out.append([r, c, "; ".join(why)])
    return out


def matrix_payload(
    matrix: TopicMatrix, cell_url: str, expected: np.ndarray | None = None
) -> dict[str, Any]:
    """The figure, and the ids, names and ratings behind each cell (names unescaped: the
    script writes them as text, or escapes them for plotly)."""
    codes = matrix.judge_codes
    return {
        "figure": matrix_figure(matrix, expected),
        "cell_url": cell_url,
        "judge": matrix.judge.id if matrix.judge else None,
        "tau": matrix.tau,
        "run": matrix.run.name if matrix.run else None,
        "rows": [{"id": r.subquestion_id, "label": f"{r.position}. {r.text}"} for r in matrix.rows],
        "columns": [
            {
                "id": c.passage_id,
                "label": column_label(matrix, i),
                "passage": c.external_id,
                "rank": c.run_position,
                "grade": GRADE_LABELS.get(c.grade) if c.grade is not None else None,
            }
            for i, c in enumerate(matrix.columns)
        ],
        "judges": [{"id": j.id, "name": j.name, "kind": j.kind} for j in matrix.judges],
        "ratings": codes.tolist() if codes is not None else [],
        "attention": attention(matrix),
    }


# What ``django.utils.html.json_script`` escapes, so the JSON cannot close its <script> element.
_SCRIPT_ESCAPES = (("<", "\\u003C"), (">", "\\u003E"), ("&", "\\u0026"))


def payload_script(payload: dict[str, Any], element_id: str) -> SafeString:
    """Exactly what ``payload|json_script:element_id`` writes, faster: json_script escapes
    with ``str.translate``, whose per-character Python mapping costs about 15 ms on a
    200 kB payload (a 15 x 300 matrix); ``str.replace`` is one C pass per character."""
    text = json.dumps(payload, cls=DjangoJSONEncoder)
    for char, escaped in _SCRIPT_ESCAPES:
        text = text.replace(char, escaped)
    return format_html(
        '<script id="{}" type="application/json">{}</script>', element_id, mark_safe(text)
    )
