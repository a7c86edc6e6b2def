"""The depths of the leaderboard's Delta-SePer@k column: at each k some run's top-k context was
scored at, how many topics each run has a Delta-SePer for (the rows ``run_deltas`` averages:
the latest setting's, with a value)."""

from __future__ import annotations

from django.db.models import Count

from crux_app.models import Collection
from evaluation.seper.correlations import _rows, latest_setting
from evaluation.seper.models import SeperScore


def delta_seper_k_topics(collection: Collection, run_names: list[str]) -> dict[int, dict[str, int]]:
    setting = latest_setting(collection)
    if setting is None:
        return {}
    rows = (
        _rows(collection, setting, SeperScore.ContextKind.RUN)
        .filter(run__name__in=run_names, delta_s__isnull=False)
        .order_by()
        .values("k", "run__name")
        .annotate(topics=Count("topic", distinct=True))
    )
    out: dict[int, dict[str, int]] = {}
    for row in rows:
        out.setdefault(row["k"], {})[row["run__name"]] = row["topics"]
    return out


def stored_depths(collection: Collection) -> list[int]:
    """The ks some run's top-k context was scored at (latest setting), deepest first."""
    runs = list(collection.runs.values_list("name", flat=True))
    return sorted(delta_seper_k_topics(collection, runs), reverse=True)


def shown_depth(collection: Collection, default: int) -> int:
    """The k a page shows without one asked for: the k the SePer jobs ran at (the one with the
    most topics scored, the deepest on a tie), else ``default``."""
    by_k = delta_seper_k_topics(collection, list(collection.runs.values_list("name", flat=True)))
    if not by_k:
        return default
    return max(by_k, key=lambda k: (sum(by_k[k].values()), k))
