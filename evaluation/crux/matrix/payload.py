"""What the matrix page hands its script (this app's ``static/js/matrix.js``): the figure, the
ids and names behind each row and column, every judge's code of every cell (the hover names them
all), and the cells the ``n`` key visits."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from crux_app.models import Judge
from evaluation.crux.matrix.figure import (
    GRADE_LABELS,
    MARKS,
    cell_label,
    column_label,
    matrix_figure,
)
from evaluation.crux.matrix.matrix import Disagreement, TopicMatrix


def machine_crossings(matrix: TopicMatrix) -> np.ndarray:
    """(J, Q, P) bool: where no person but the shown judge rated the topic (the shown judge is
    the expert, or nobody labelled), the other judges (``matrix.judges`` order) whose parsed
    rating of a cell is on the other side of tau from the shown judge's. Other people's ratings
    are marked by ``matrix.disagreement`` and then they alone are the reference."""
    shape = (len(matrix.judges), *matrix.codes.shape)
    if matrix.judge_codes is None or matrix.judge is None or not matrix.judges:
        return np.zeros(shape, dtype=bool)
    others = np.array([j.id != matrix.judge.id for j in matrix.judges])
    if any(o and j.kind == Judge.Kind.HUMAN for o, j in zip(others, matrix.judges, strict=True)):
        return np.zeros(shape, dtype=bool)
    theirs, mine = matrix.judge_codes.astype(np.int64), matrix.codes.astype(np.int64)[None]
    rated = (theirs >= 0) & (mine >= 0)
    return rated & ((theirs >= matrix.tau) != (mine >= matrix.tau)) & others[:, None, None]


def attention(matrix: TopicMatrix) -> list[list[Any]]:
    """[row, column, why] of each cell worth a look (the ``n`` key's), in reading order: no
    parsed rating from the selected judge, a human's rating marked against it (the worst mark
    names it), or another judge's rating on the other side of tau (named)."""
    crossings = machine_crossings(matrix)
    worth = (matrix.codes < 0) | (matrix.disagreement > Disagreement.NONE) | crossings.any(axis=0)
    out: list[list[Any]] = []
    for r, c in zip(*(a.tolist() for a in np.nonzero(worth)), strict=True):
        level = int(matrix.disagreement[r, c])
        why = [cell_label(int(matrix.codes[r, c]))] if matrix.codes[r, c] < 0 else []
        if level > Disagreement.NONE:
            why.append(MARKS[Disagreement(level)][0])
        names = [matrix.judges[j].name for j in np.nonzero(crossings[:, r, c])[0].tolist()]
        if names:
            why.append(f"{', '.join(names)}: other side of tau")
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
