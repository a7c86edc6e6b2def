"""The uncertainty graph of one DENSE result as a plotly figure.

Nodes are the responses (r_0 under the original context, r_i with chunk i rephrased); an edge
joins two responses with weight W > 0 (solid: equivalent both ways, dotted: one way). Clusters
(responses joined by weight-1 edges) sit around their own point of a circle, so the graph's
clusters are visible at a glance; hover shows the response and the rephrased chunk.
"""

from __future__ import annotations

import math
from typing import Any

HOVER_CHARS = 300


def clusters(w: list[list[float]]) -> list[list[int]]:
    """Connected components of the weight-1 edges, each sorted, ordered by first member."""
    n = len(w)
    seen: set[int] = set()
    out = []
    for start in range(n):
        if start in seen:
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for other in range(n):
                if other not in seen and w[node][other] == 1.0:
                    seen.add(other)
                    stack.append(other)
        out.append(sorted(group))
    return out


def layout_positions(groups: list[list[int]]) -> dict[int, tuple[float, float]]:
    """Cluster centres on a unit circle, members on a small circle around their centre."""
    positions = {}
    for g, members in enumerate(groups):
        angle = 2 * math.pi * g / len(groups)
        cx, cy = (math.cos(angle), math.sin(angle)) if len(groups) > 1 else (0.0, 0.0)
        radius = 0.0 if len(members) == 1 else 0.12 + 0.03 * len(members)
        for m, node in enumerate(members):
            a = 2 * math.pi * m / len(members)
            positions[node] = (cx + radius * math.cos(a), cy + radius * math.sin(a))
    return positions


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= HOVER_CHARS else text[: HOVER_CHARS - 1] + "…"


def graph_figure(detail: dict[str, Any]) -> dict[str, Any]:
    w = detail["W"]
    responses = detail["responses"]
    rephrased = detail.get("rephrased", [])
    labels = detail.get("labels", [])
    groups = clusters(w)
    pos = layout_positions(groups)
    data: list[dict[str, Any]] = []
    for weight, dash, name in ((1.0, "solid", "equivalent"), (0.5, "dot", "one-way entailment")):
        xs: list[float | None] = []
        ys: list[float | None] = []
        for i in range(len(w)):
            for j in range(i + 1, len(w)):
                if w[i][j] == weight:
                    xs += [pos[i][0], pos[j][0], None]
                    ys += [pos[i][1], pos[j][1], None]
        if xs:
            data.append(
                {"type": "scatter", "mode": "lines", "name": name, "x": xs, "y": ys,
                 "hoverinfo": "skip", "line": {"dash": dash, "width": 2 if weight == 1 else 1,
                                               "color": "#8a94a6"}}
            )  # fmt: skip
    cluster_of = {node: g for g, members in enumerate(groups) for node in members}
    hover, names, colors = [], [], []
    for i, response in enumerate(responses):
        if i == 0:
            names.append("r0")
            hover.append(f"<b>r0 (original context)</b><br>{_short(response)}")
            colors.append("#1f4e9c")
            continue
        label = labels[i - 1] if i - 1 < len(labels) else ""
        chunk = rephrased[i - 1] if i - 1 < len(rephrased) else ""
        names.append(f"r{i}")
        hover.append(
            f"<b>r{i}</b> (chunk {i} rephrased, {label})<br>{_short(response)}"
            f"<br><i>rephrased chunk:</i> {_short(chunk)}"
        )
        colors.append({"certain": "#1a7f37", "necessary": "#b26b00"}.get(label, "#b42318"))
    data.append(
        {
            "type": "scatter",
            "mode": "markers+text",
            "name": "responses",
            "x": [pos[i][0] for i in range(len(responses))],
            "y": [pos[i][1] for i in range(len(responses))],
            "text": names,
            "textposition": "top center",
            "hovertext": hover,
            "hoverinfo": "text",
            "customdata": [cluster_of[i] for i in range(len(responses))],
            "marker": {"size": 18, "color": colors, "line": {"width": 1, "color": "#222"}},
        }
    )
    axis = {"visible": False, "range": [-1.6, 1.6]}
    layout = {
        "showlegend": True,
        "xaxis": axis,
        "yaxis": {**axis, "scaleanchor": "x"},
        "height": 420,
        "margin": {"t": 10, "b": 10, "l": 10, "r": 10},
        "hovermode": "closest",
    }
    return {"data": data, "layout": layout}
