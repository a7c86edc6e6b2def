"""The leaderboard's "DENSE uncertain share" column: per run, the share of questions whose
DSE is above the threshold, from stored rows (the leaderboard's k when DENSE ran with it,
else the k with the most questions)."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from evaluation.dense.stored_results import latest_results
from evaluation.leaderboard.columns import RunColumn, best_covered_k

if TYPE_CHECKING:
    from crux_app.models import Collection
    from evaluation.leaderboard.columns import LeaderboardParams

KEY = "dense_uncertain_share"


def uncertain_share(
    collection: Collection, params: LeaderboardParams, run_names: list[str]
) -> dict[str, float | None]:
    by_run: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for row in latest_results(collection):
        by_run[row.run.name][row.k].append(row.uncertain)
    out: dict[str, float | None] = {}
    for name in run_names:
        per_k = by_run.get(name)
        if not per_k:
            out[name] = None
            continue
        topics = {n: len(flags) for n, flags in per_k.items()}
        k = params.k if params.k in per_k else best_covered_k(topics)
        flags = per_k[k]
        out[name] = sum(flags) / len(flags)
    return out


def dense_k_topics(collection: Collection, run_names: list[str]) -> dict[int, dict[str, int]]:
    """Depth -> run name -> questions (topics) with a stored row (the newest per question)."""
    wanted = set(run_names)
    out: dict[int, dict[str, int]] = defaultdict(dict)
    for row in latest_results(collection):
        if row.run.name in wanted:
            out[row.k][row.run.name] = out[row.k].get(row.run.name, 0) + 1
    return dict(out)


COLUMN = RunColumn(
    key=KEY,
    label="DENSE uncertain",
    values=uncertain_share,
    k_topics=dense_k_topics,
    k_fallback=True,  # a run without rows at the leaderboard's k shows its best-covered k
    description="share of questions with DSE above the threshold (lower is better)",
)
