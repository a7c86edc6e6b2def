"""What the "Judge vs people" page and the HTML report show: the JSON figures, readable, and two
plotly specs (plain data): the run scores under A vs B, and the per-topic tau histogram."""

from __future__ import annotations

from evaluation.judge_report.export import to_dict
from evaluation.judge_report.report import JudgeReport


def number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def interval(ci: list[float] | tuple[float, float] | None, digits: int = 3) -> str:
    return "" if not ci else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def scatter(data: dict) -> dict:
    """Each run's mean score under judge A (x) and B (y), with the diagonal."""
    runs = data["run_ranking"]["runs"]
    judges, label = data["meta"]["judges"], data["meta"]["metric_label"]
    values = [r["score_a"] for r in runs] + [r["score_b"] for r in runs]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "name": "runs",
                "x": [r["score_a"] for r in runs],
                "y": [r["score_b"] for r in runs],
                "text": [r["run"] for r in runs],
                "hovertemplate": "%{text}<br>A %{x:.3f}, B %{y:.3f}<extra></extra>",
            },
            {
                "type": "scatter",
                "mode": "lines",
                "name": "equal",
                "x": [low, high],
                "y": [low, high],
                "line": {"dash": "dot", "color": "#999"},
            },
        ],
        "layout": {
            "title": {"text": f"Run {label}: A vs B", "font": {"size": 13}},
            "xaxis": {"title": {"text": f"{judges['a']['name']} (A)"}},
            "yaxis": {"title": {"text": f"{judges['b']['name']} (B)"}},
            "showlegend": False,
            "width": 480,
            "height": 420,
            "margin": {"l": 60, "r": 10, "t": 50, "b": 50},
        },
    }


def tau_histogram(data: dict) -> dict:
    """How many topics have each per-topic tau (bins of 0.2 from -1 to 1)."""
    hist = data["per_topic"]["histogram"]
    edges = hist["edges"]
    centres = [(lo + hi) / 2 for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
    return {
        "data": [
            {
                "type": "bar",
                "x": centres,
                "y": hist["counts"],
                "width": 0.19,
                "hovertemplate": "tau %{x:.1f} ± 0.1: %{y} topics<extra></extra>",
            }
        ],
        "layout": {
            "title": {"text": "Per-topic Kendall tau", "font": {"size": 13}},
            "xaxis": {"title": {"text": "tau between the judges' run rankings on one topic"}},
            "yaxis": {"title": {"text": "topics"}},
            "width": 480,
            "height": 420,
            "margin": {"l": 60, "r": 10, "t": 50, "b": 50},
        },
    }


def _ppi_rows(data: dict) -> list[dict[str, object]]:
    rows = []
    for r in data["ppi"]["runs"]:
        rows.append(
            {
                "run": r["run"],
                "judge": number(r["judge_only"]["estimate"]),
                "judge_ci": interval(r["judge_only"]["ci"]),
                "judge_n": r["judge_only"]["n"],
                "human": number(r["human_only"]["estimate"]),
                "human_ci": interval(r["human_only"]["ci"]),
                "human_n": r["human_only"]["n"],
                "ppi": number(r["ppi"]["estimate"]),
                "ppi_ci": interval(r["ppi"]["ci"]),
                "effective_n": number(r["effective_n"], 1),
                "biased": r["judge_biased"],
                "undefined": r["undefined"],
            }
        )
    return rows


def context(report: JudgeReport) -> dict[str, object]:
    """Everything the shared body template reads."""
    data = to_dict(report)
    ranking = data["run_ranking"]
    level = data["meta"]["bootstrap"]["level"]
    return {
        "data": data,
        "meta": data["meta"],
        "level": f"{level:.0%}",
        "headline": {
            "not_measurable": ranking.get("not_measurable", ""),
            "kendall_tau": number(ranking["kendall_tau"]),
            "kendall_tau_ci": interval(ranking["kendall_tau_ci"]),
            "tau_ap": number(ranking["tau_ap"]),
            "tau_ap_ci": interval(ranking["tau_ap_ci"]),
            "tau_ap_symmetric": number(ranking["tau_ap_symmetric"]),
        },
        "runs": [
            {**r, "score_a_text": number(r["score_a"]), "score_b_text": number(r["score_b"])}
            for r in ranking["runs"]
        ],
        "swaps": [
            {
                **s,
                "diff_a_text": number(s["diff_a"]),
                "diff_b_text": number(s["diff_b"]),
                "p_a_text": number(s["p_a"]),
                "p_b_text": number(s["p_b"]),
            }
            for s in data["swaps"]
        ],
        "ppi_rows": _ppi_rows(data),
        "figures": figures(data),
        "tau_histogram_absent": tau_histogram_absent(data),
        "warnings": report.warnings,
    }


def tau_histogram_absent(data: dict) -> str:
    """Why the per-topic tau chart is not drawn ("" when it is): no topic has a tau."""
    if any(data["per_topic"]["histogram"]["counts"]):
        return ""
    why = data["run_ranking"].get("not_measurable")
    if why:
        return f"No per-topic Kendall τ is drawn: {why}."
    return (
        "No per-topic Kendall τ is drawn: it is defined on no topic (a topic needs at least two "
        "runs with scores under both judges that neither judge ties)."
    )


def figures(data: dict) -> list[dict[str, object]]:
    """The run scores under A vs B when a run has both, and the per-topic tau histogram when a
    topic has a tau: an empty chart would look like a figure."""
    found = []
    if data["run_ranking"]["runs"]:  # the runs table says when none has both scores
        spec = scatter(data)
        found.append({"id": "judge-scatter", "data_id": "judge-scatter-data", "spec": spec})
    if not tau_histogram_absent(data):
        spec = tau_histogram(data)
        found.append({"id": "tau-histogram", "data_id": "tau-histogram-data", "spec": spec})
    return found
