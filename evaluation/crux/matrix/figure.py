"""The coverage matrix as a plotly figure dict, built by hand from the matrix arrays.

``plotly.graph_objects`` validates every property and takes tens of milliseconds for a
300-column heatmap; the page only needs the JSON, so the dict is written directly.
"""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np

from evaluation.crux.matrix.matrix import (
    NOT_JUDGED,
    UNPARSABLE,
    Disagreement,
    MatrixRow,
    TopicMatrix,
)

# Cell colours: "not judged" and "unparsable" stand apart from the sequential 0..5 ramp.
CODE_COLOURS = {
    NOT_JUDGED: "#e3e6ea",
    UNPARSABLE: "#f28e2b",
    0: "#ffffd9",
    1: "#c7e9b4",
    2: "#7fcdbb",
    3: "#41b6c4",
    4: "#1d6fb8",
    5: "#0c2c84",
}
CODE_LABELS = {NOT_JUDGED: "not judged", UNPARSABLE: "unparsable"}
GRADE_COLOURS = {0: "#ffffff", 1: "#bdbdbd", 2: "#a1d99b", 3: "#238b45"}
GRADE_LABELS = {
    0: "no qrel",
    1: "fully redundant (1)",
    2: "partially redundant (2)",
    3: "required (3)",
}
RUN_COLOURS = {0: "#ffffff", 1: "#c6dbef", 2: "#2b5fb4"}
MARKS = {
    Disagreement.CROSSES_TAU: ("human: other side of tau", "x", "#d62728", 10),
    Disagreement.DIFFERS: ("human: other rating", "circle-open", "#111111", 8),
    Disagreement.HUMAN_ONLY: ("human rating only", "diamond-open", "#7b3294", 8),
}
ROW_LABEL_CHARS = 46
MAX_LABELLED_COLUMNS = 60
TICK_CHARS = 10  # a passage id longer than this shows its end on the axis (the hover has it all)
STRIP_SHARE = 0.09  # of the plot height, for the qrel and run strips above the heatmap


def cell_label(code: int) -> str:
    return CODE_LABELS.get(code, f"rating {code}")


def row_label(row: MatrixRow) -> str:
    """Plotly tick text: an answerability mark, the position and the (escaped) question."""
    text = row.text if len(row.text) <= ROW_LABEL_CHARS else row.text[: ROW_LABEL_CHARS - 1] + "…"
    body = f"{row.position}. {escape(text, quote=False)}"
    if row.answerable is None:
        return body
    if row.covered:
        return f'<span style="color:#23804a"><b>● {body}</b></span>'
    if row.answerable:
        return f'<span style="color:#c05a00">○</span> {body}'
    if row.undetermined:
        return f'<span style="color:#5b6673">?</span> {body}'
    return f'<span style="color:#9aa3ae">– {body}</span>'


def column_label(matrix: TopicMatrix, index: int) -> str:
    """Plain text naming a column: passage id, run position, qrel grade."""
    col = matrix.columns[index]
    parts = [col.external_id]
    if col.run_position is not None and matrix.run is not None:
        parts.append(f"#{col.run_position} in {matrix.run.name}")
    if col.grade is not None:
        parts.append(f"{GRADE_LABELS.get(col.grade, f'grade {col.grade}')} [{col.grade_source}]")
    return " · ".join(parts)


def column_tick(matrix: TopicMatrix, index: int) -> str:
    """The axis label of a column: its position in the selected run, else its passage id's
    end (escaped: plotly reads tick text as HTML)."""
    col = matrix.columns[index]
    if col.run_position is not None and matrix.run is not None:
        return f"#{col.run_position}"
    name = col.external_id
    short = name if len(name) <= TICK_CHARS else "…" + name[1 - TICK_CHARS :]
    return escape(short, quote=False)


def column_ticks(matrix: TopicMatrix) -> list[int]:
    """Which columns get an axis label: all of them, or on a wide matrix every n-th one and
    the first and last of each block (top-k, other judged, required)."""
    n_cols = len(matrix.columns)
    step = max(1, -(-n_cols // MAX_LABELLED_COLUMNS))
    if step == 1:
        return list(range(n_cols))
    ends = {
        i
        for i, col in enumerate(matrix.columns)
        if i in (0, n_cols - 1)
        or matrix.columns[i - 1].group != col.group
        or matrix.columns[i + 1].group != col.group
    }
    # Regular labels keep clear of the block ends, which matter more.
    regular = {i for i in range(0, n_cols, step) if all(abs(i - e) >= step // 2 for e in ends)}
    return sorted(regular | ends)


def matrix_figure(matrix: TopicMatrix, expected: np.ndarray | None = None) -> dict[str, Any]:
    """Heatmap of codes (or, with ``expected``, of the expected rating where a cell has one),
    a qrel/run strip above it, and human-disagreement markers."""
    n_rows, n_cols = matrix.codes.shape
    cell_scale, zmin, zmax = _stepped(CODE_COLOURS)
    labels = np.array([cell_label(c) for c in range(NOT_JUDGED, 6)], dtype=object)
    text = labels[matrix.codes.astype(np.int64) - NOT_JUDGED]
    heatmap = {
        "type": "heatmap",
        "name": "ratings",
        "z": matrix.codes.tolist(),
        "text": text.tolist(),
        "hovertemplate": "%{text}<extra></extra>",
        "colorscale": cell_scale,
        "zmin": zmin,
        "zmax": zmax,
        "xgap": 1 if n_cols <= 80 else 0,
        "ygap": 1,
        "colorbar": {
            "tickvals": sorted(CODE_COLOURS),
            "ticktext": [CODE_LABELS.get(c, str(c)) for c in sorted(CODE_COLOURS)],
            "thickness": 12,
            "len": 0.85,
            "y": 0.45,
            "title": {"text": "rating", "side": "top"},
        },
    }
    if expected is not None:
        _colour_by_expected(heatmap, matrix, expected)
    strip = _strip(matrix)
    marks = [_marks(matrix, level) for level in MARKS]
    height = max(320, 24 * n_rows + 200)
    ticks = column_ticks(matrix)
    tick_text = [column_tick(matrix, i) for i in ticks]
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 30, "b": 78},
        "font": {"size": 11},
        "xaxis": {
            "range": [-0.5, n_cols - 0.5],
            "tickvals": ticks,
            "ticktext": tick_text,
            "tickfont": {"size": 9},
            "automargin": True,  # plotly turns the labels when they would overlap
            "showgrid": False,
            "zeroline": False,
            "title": {"text": _x_title(matrix), "font": {"size": 11}},
        },
        "yaxis": {
            "domain": [0, 1 - STRIP_SHARE - 0.01],
            "range": [n_rows - 0.5, -0.5],
            "tickvals": list(range(n_rows)),
            "ticktext": [row_label(r) for r in matrix.rows],
            "automargin": True,
            "showgrid": False,
            "zeroline": False,
        },
        "yaxis2": {
            "domain": [1 - STRIP_SHARE, 1],
            "range": [1.5, -0.5],
            "tickvals": [0, 1],
            "ticktext": ["qrel grade", "run"],
            "automargin": True,
            "showgrid": False,
            "zeroline": False,
        },
        "shapes": _shapes(matrix),
        # Along the bottom edge of the figure, below the tick labels and the axis title.
        "legend": {
            "orientation": "h",
            "x": 0,
            "y": 0,
            "xanchor": "left",
            "yanchor": "bottom",
            "yref": "container",
        },
        "hovermode": "closest",
        "dragmode": "zoom",
        "plot_bgcolor": "#ffffff",
    }
    return {"data": [heatmap, strip, *marks], "layout": layout}


def _x_title(matrix: TopicMatrix) -> str:
    parts = []
    if matrix.run is not None:
        parts.append(f"{escape(matrix.run.name)} top-{matrix.k} (rank)")
    parts.append("other judged passages")
    if any(c.group == "required" for c in matrix.columns):
        parts.append("required, not judged")
    return " → ".join(parts)


def _colour_by_expected(heatmap: dict[str, Any], matrix: TopicMatrix, expected: np.ndarray) -> None:
    """Cells with a distribution take their expected rating on a continuous 0..5 ramp through
    the rating colours; the others keep their code (a rating sits on the same ramp)."""
    has = ~np.isnan(expected)
    z = np.where(has, expected, matrix.codes.astype(float))
    text = np.array(heatmap["text"], dtype=object)
    ratings = np.array([cell_label(int(c)) for c in matrix.codes.ravel()], dtype=object)
    described = [
        f"expected rating {e:.2f} ({r})"
        for e, r in zip(expected[has].tolist(), ratings.reshape(z.shape)[has].tolist(), strict=True)
    ]
    text[has] = np.array(described, dtype=object)
    lo, hi = NOT_JUDGED - 0.5, 5.5

    def at(x: float) -> float:
        return (x - lo) / (hi - lo)

    scale: list[list[Any]] = []
    for code in (NOT_JUDGED, UNPARSABLE):
        scale += [[at(code - 0.5), CODE_COLOURS[code]], [at(code + 0.5), CODE_COLOURS[code]]]
    scale.append([at(-0.5), CODE_COLOURS[0]])
    scale += [[at(r), CODE_COLOURS[r]] for r in range(6)]
    scale.append([1.0, CODE_COLOURS[5]])
    heatmap |= {
        "name": "expected ratings",
        "z": z.round(3).tolist(),
        "text": text.tolist(),
        "colorscale": scale,
        "zmin": lo,
        "zmax": hi,
    }
    heatmap["colorbar"] = {**heatmap["colorbar"], "title": {"text": "expected", "side": "top"}}


def _strip(matrix: TopicMatrix) -> dict[str, Any]:
    """Two thin rows above the heatmap: the qrel grade and run membership of each column."""
    grades = [c.grade if c.grade in GRADE_COLOURS else 0 for c in matrix.columns]
    in_run = [
        2 if c.group == "topk" else (1 if c.run_position is not None else 0) for c in matrix.columns
    ]
    # Plotly reads its text as HTML: names from imported files are escaped.
    run_name = escape(matrix.run.name) if matrix.run else "run"
    run_text = [
        f"#{c.run_position} in {run_name}" if c.run_position is not None else f"not in {run_name}"
        for c in matrix.columns
    ]
    grade_text = [
        f"{GRADE_LABELS.get(c.grade, 'no qrel')}"
        + (f" [{escape(c.grade_source)}]" if c.grade_source else "")
        for c in matrix.columns
    ]
    # One colour scale for both rows: grades 0..3 and run codes shifted to 10..12.
    colours = {**GRADE_COLOURS, **{10 + k: v for k, v in RUN_COLOURS.items()}}
    scale, zmin, zmax = _stepped(colours)
    return {
        "type": "heatmap",
        "name": "columns",
        "yaxis": "y2",
        "z": [grades, [10 + v for v in in_run]],
        "text": [grade_text, run_text],
        "hovertemplate": "%{text}<extra></extra>",
        "colorscale": scale,
        "zmin": zmin,
        "zmax": zmax,
        "showscale": False,
        "xgap": 1 if len(matrix.columns) <= 80 else 0,
        "ygap": 1,
    }


def _stepped(colours: dict[int, str]) -> tuple[list[list[Any]], float, float]:
    """A colour scale with one flat band per integer code (codes may have gaps), and its
    zmin/zmax: each code owns the band halfway to its neighbours."""
    codes = sorted(colours)
    lo, hi = codes[0] - 0.5, codes[-1] + 0.5
    scale: list[list[Any]] = []
    for i, code in enumerate(codes):
        start = lo if i == 0 else (codes[i - 1] + code) / 2
        end = hi if i == len(codes) - 1 else (code + codes[i + 1]) / 2
        scale += [
            [(start - lo) / (hi - lo), colours[code]],
            [(end - lo) / (hi - lo), colours[code]],
        ]
    return scale, lo, hi


def _marks(matrix: TopicMatrix, level: Disagreement) -> dict[str, Any]:
    name, symbol, colour, size = MARKS[level]
    rows, cols = np.nonzero(matrix.disagreement == level)
    text = []
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        mine = cell_label(int(matrix.codes[r, c]))
        humans = ", ".join(f"{escape(n)}: {v}" for n, v in matrix.human_ratings.get((r, c), []))
        text.append(
            f"{mine} ({escape(matrix.judge.name) if matrix.judge else 'no judge'})<br>{humans}"
        )
    return {
        "type": "scatter",
        "mode": "markers",
        "name": name,
        "x": cols.tolist(),
        "y": rows.tolist(),
        "text": text,
        # The cell beneath describes itself in full (every judge's rating): let it answer
        # (a hovertemplate would override the skip).
        "hoverinfo": "skip",
        "marker": {"symbol": symbol, "color": colour, "size": size, "line": {"width": 2}},
        "showlegend": True,
    }


def _shapes(matrix: TopicMatrix) -> list[dict[str, Any]]:
    """An outline around the run's top-k block, and a band behind covered rows' labels."""
    shapes: list[dict[str, Any]] = []
    n_rows = len(matrix.rows)
    if matrix.n_topk:
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "y",
                "x0": -0.5,
                "x1": matrix.n_topk - 0.5,
                "y0": -0.5,
                "y1": n_rows - 0.5,
                "line": {"color": "#2b5fb4", "width": 2},
                "fillcolor": "rgba(0,0,0,0)",
            }
        )
    for i, row in enumerate(matrix.rows):
        if row.covered:
            shapes.append(
                {
                    "type": "rect",
                    "xref": "paper",
                    "yref": "y",
                    "x0": -0.6,
                    "x1": 0,
                    "y0": i - 0.5,
                    "y1": i + 0.5,
                    "line": {"width": 0},
                    "fillcolor": "rgba(35,128,74,0.12)",
                    "layer": "below",
                }
            )
    return shapes
