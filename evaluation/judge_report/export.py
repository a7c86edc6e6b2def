"""The judge report as plain JSON-ready data (``manage.py judge_report --format json``, the page's
JSON download, and what the page and the HTML report show)."""

from __future__ import annotations

import json
import math

import numpy as np
from scipy.stats import rankdata

from evaluation.judge_report.method.ppi import MIN_LABELLED, MIN_UNLABELLED
from evaluation.judge_report.method.ranking_agreement import SIGNIFICANCE_TEST
from evaluation.judge_report.report import JudgeReport
from evaluation.shared.json_values import plain_json_value

PPI_ASSUMPTION = (
    "PPI is unbiased only if the topics people labelled are a uniformly random (or "
    "proportionally stratified) sample of the collection's topics; labelling the topics a judge "
    "finds hard, or the first ones, breaks it."
)
HISTOGRAM_EDGES = [round(-1 + 0.2 * i, 1) for i in range(11)]


def _number(value: float | None) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def meta(report: JudgeReport) -> dict[str, object]:
    params, boot = report.params, report.params.bootstrap
    return {
        "collection": report.collection.name,
        "collection_id": report.collection.pk,
        "generated_at": report.generated_at.isoformat(timespec="seconds"),
        "metric": params.metric,
        "metric_label": params.metric_label,
        "metric_basis": params.metric_basis,
        "k": params.k,
        "judges": {
            "a": report.judge_a.as_dict(),
            "b": report.judge_b.as_dict(),
        },
        "reference": report.reference_side.name,
        "bootstrap": {"resamples": boot.resamples, "seed": boot.seed, "level": boot.level},
        "significance": {"test": SIGNIFICANCE_TEST, "alpha": params.alpha},
        "notes": list(report.notes),
    }


def _ranks(values: np.ndarray) -> list[int]:
    return [int(r) for r in rankdata(-values, method="min")]


def run_ranking(report: JudgeReport) -> dict[str, object]:
    ranking = report.ranking
    if ranking is None:
        return {
            "kendall_tau": None,
            "kendall_tau_ci": None,
            "tau_ap": None,
            "tau_ap_ci": None,
            "tau_ap_truth": report.reference_side.name,
            "tau_ap_symmetric": None,
            "n_runs": len(report.ranking_runs),
            "n_topics": len(report.ranking_topics),
            "not_measurable": "",
            "runs": [],
        }
    rank_a, rank_b = _ranks(ranking.mean_a), _ranks(ranking.mean_b)
    tau_ci, tap_ci = ranking.kendall_tau_ci, ranking.tau_ap_ci
    return {
        "kendall_tau": ranking.kendall_tau,
        "kendall_tau_ci": tau_ci.as_list() if tau_ci else None,
        "tau_ap": ranking.tau_ap,
        "tau_ap_ci": tap_ci.as_list() if tap_ci else None,
        "tau_ap_truth": report.reference_side.name,
        "tau_ap_symmetric": ranking.tau_ap_symmetric,
        "n_runs": ranking.n_runs,
        "n_topics": ranking.n_topics,
        # Set (and every coefficient None) when the runs are too few to measure agreement.
        "not_measurable": ranking.not_measurable,
        "runs": [
            {
                "run": name,
                "score_a": float(ranking.mean_a[i]),
                "score_b": float(ranking.mean_b[i]),
                "rank_a": rank_a[i],
                "rank_b": rank_b[i],
            }
            for i, name in enumerate(ranking.runs)
        ],
    }


def histogram(taus: list[float | None]) -> dict[str, list]:
    defined = [t for t in taus if t is not None]
    counts, _ = np.histogram(defined, bins=HISTOGRAM_EDGES)
    return {"edges": HISTOGRAM_EDGES, "counts": counts.astype(int).tolist()}


def per_topic(report: JudgeReport) -> dict[str, object]:
    ranking = report.ranking
    if ranking is None:
        return {"summary": None, "topics": [], "histogram": histogram([])}
    names = [report.axes.topic_names[t] for t in report.ranking_topics]
    taus = [_number(v) for v in ranking.per_topic_tau]
    summary = ranking.per_topic_summary
    return {
        "summary": {
            "n_topics": summary.n_topics,
            "n_defined": summary.n_defined,
            "mean": summary.mean,
            "median": summary.median,
            "q1": summary.q1,
            "q3": summary.q3,
            "min": summary.minimum,
            "max": summary.maximum,
        },
        "topics": [{"topic": name, "tau": tau} for name, tau in zip(names, taus, strict=True)],
        "histogram": histogram(taus),
    }


def swaps(report: JudgeReport) -> list[dict[str, object]]:
    return [s.as_dict() for s in report.ranking.swaps] if report.ranking else []


def ppi(report: JudgeReport) -> dict[str, object]:
    labelled_topics = [
        name
        for name, labelled in zip(
            report.axes.topic_names,
            np.isfinite(report.scores_a if report.reference == "a" else report.scores_b).any(0),
            strict=True,
        )
        if labelled
    ]
    return {
        "judge": report.predictor_side.name,
        "reference": report.reference_side.name,
        "level": report.params.bootstrap.level,
        "method": (
            "ppi_py.ppi_mean_ci (power-tuned PPI++): gold = the reference's scores on the "
            "topics it labelled, predictions = the judge's scores there, unlabelled = the "
            f"topics only the judge scored (at least {MIN_LABELLED} and {MIN_UNLABELLED}); "
            "effective_n = n_labelled * (human-only width / PPI width)^2 on the labelled topics"
        ),
        "assumption": PPI_ASSUMPTION,
        "labelled_topics": labelled_topics,
        "sampling_check": report.sampling.as_dict() if report.sampling else None,
        "selection_notes": list(report.selection_notes),
        "runs": [{"run": r.run, **r.result.as_dict()} for r in report.ppi],
    }


def to_dict(report: JudgeReport) -> dict[str, object]:
    return {
        "meta": meta(report),
        "run_ranking": run_ranking(report),
        "per_topic": per_topic(report),
        "swaps": swaps(report),
        "ppi": ppi(report),
        "self_consistency": report.self_consistency,
        "warnings": [w.as_dict() for w in report.warnings],
    }


def to_json(report: JudgeReport, indent: int | None = 2) -> str:
    return json.dumps(to_dict(report), indent=indent, default=plain_json_value, allow_nan=False)
