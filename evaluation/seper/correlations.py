"""Delta-SePer as a run metric: its per-run mean (a leaderboard column) and its Pearson
correlation with passage utility labels, CRUX coverage and Recall@k.

Everything is read from stored ``SeperScore`` rows of one setting (generator, NLI model and
sampling parameters: the collection's most recent topic-level row's), never recomputed:

- per run, the mean over topics of Delta-SePer of the run's top-k context (rows at the
  leaderboard's k exactly; None where the run has none);
- per passage scored alone, Delta-SePer against its utility label: 1 for a gold passage
  (``qa_gold`` qrels), 0 for a distractor, on topics that have gold passages (the paper's
  Table 2);
- per (topic, run), Delta-SePer of the top-k context against coverage and Recall@k at the same
  k, as the leaderboard's columns give them per topic (``per_topic_values``: the method that
  registers those columns computes them; SePer does not name it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from crux_app.models import Collection, PassageQrel
from crux_app.vocabulary import QA_GOLD_SOURCE
from evaluation.leaderboard.columns import LeaderboardParams, per_topic_values
from evaluation.seper.judge_warnings import models_name, no_gain_warnings
from evaluation.seper.models import SeperScore
from evaluation.shared.degenerate import JudgeWarning
from evaluation.shared.pearson_correlation import Correlation, pearson

DELTAS = (("delta_s", "ΔSePer_S"), ("delta_h", "ΔSePer_H"))
METRIC_KEYS = ("coverage", "recall")
TARGETS = (
    ("utility", "utility label (gold passage 1, distractor 0), per passage"),
    ("coverage", "CRUX coverage@k, per (topic, run)"),
    ("recall", "Recall@k, per (topic, run)"),
)


@dataclass(frozen=True)
class SeperSetting:
    generator: str
    nli: str
    params: dict


def latest_setting(collection: Collection) -> SeperSetting | None:
    """The setting of the collection's most recent topic-level SePer row."""
    row = (
        SeperScore.objects.filter(topic__collection=collection, subquestion__isnull=True)
        .order_by("-created_at", "-pk")
        .values("generator", "nli", "params")
        .first()
    )
    return SeperSetting(**row) if row else None


def _rows(collection: Collection, setting: SeperSetting, kind: str):
    return SeperScore.objects.filter(
        topic__collection=collection,
        subquestion__isnull=True,
        context_kind=kind,
        generator=setting.generator,
        nli=setting.nli,
        params=setting.params,
    )


def run_deltas(
    collection: Collection, k: int | str, run_names: Iterable[str], field_name: str = "delta_s"
) -> dict[str, float | None]:
    """Run name -> mean Delta-SePer of its top-k context over the topics scored at k."""
    names = list(run_names)
    setting = latest_setting(collection)
    out: dict[str, float | None] = {name: None for name in names}
    if setting is None or not isinstance(k, int):
        return out
    rows = _rows(collection, setting, SeperScore.ContextKind.RUN).filter(k=k, run__name__in=names)
    values: dict[str, list[float]] = {}
    for name, value in rows.values_list("run__name", field_name):
        if value is not None:
            values.setdefault(name, []).append(value)
    out.update({name: sum(v) / len(v) for name, v in values.items()})
    return out


def delta_seper_column(
    collection: Collection, params: LeaderboardParams, run_names: list[str]
) -> dict[str, float | None]:
    """The leaderboard column's values (a ``RunColumn.values``)."""
    return run_deltas(collection, params.k, run_names)


@dataclass(frozen=True)
class CorrelationRow:
    delta: str  # delta_s or delta_h
    target: str  # utility, coverage, recall
    description: str
    correlation: Correlation

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "correlation": self.correlation.as_dict()}


@dataclass
class SeperCorrelations:
    setting: SeperSetting | None
    k: int | str
    rows: list[CorrelationRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[JudgeWarning] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "setting": asdict(self.setting) if self.setting else None,
            "k": self.k,
            "correlations": [r.as_dict() for r in self.rows],
            "notes": list(self.notes),
            "warnings": [w.as_dict() for w in self.warnings],
        }


def _utility_pairs(collection: Collection, setting: SeperSetting, name: str):
    gold = PassageQrel.objects.filter(
        topic__collection=collection, source=QA_GOLD_SOURCE, grade__gt=0
    ).values_list("topic_id", "passage_id")
    gold_pairs = set(gold)
    with_gold = {t for t, _ in gold_pairs}
    rows = _rows(collection, setting, SeperScore.ContextKind.PASSAGE).filter(topic_id__in=with_gold)
    deltas, labels = [], []
    for topic, passage, value in rows.values_list("topic_id", "passage_id", name):
        deltas.append(value)
        labels.append(1.0 if (topic, passage) in gold_pairs else 0.0)
    return deltas, labels


def _metric_pairs(collection, setting, params: LeaderboardParams, name: str, per_topic):
    """Delta of each (topic, run) top-k row, and the runs' per-topic metrics at that k."""
    rows = _rows(collection, setting, SeperScore.ContextKind.RUN).filter(k=params.k)
    deltas = {(t, run): v for t, run, v in rows.values_list("topic_id", "run__name", name)}
    x, by_metric = [], {"coverage": [], "recall": []}
    for (topic, run), value in sorted(deltas.items()):
        if (run, topic) not in per_topic["recall"]:
            continue
        x.append(value)
        for metric, column in by_metric.items():
            column.append(per_topic[metric].get((run, topic)))
    return x, by_metric


@dataclass(frozen=True)
class _Context:
    kind: str
    delta_s: float | None
    delta_h: float | None


def _no_gain_warnings(collection: Collection, setting: SeperSetting) -> list[JudgeWarning]:
    """Every Delta-SePer of the collection <= 0, the gold passages' included."""
    rows = SeperScore.objects.filter(
        topic__collection=collection,
        subquestion__isnull=True,
        generator=setting.generator,
        nli=setting.nli,
        params=setting.params,
    ).values_list("context_kind", "delta_s", "delta_h")
    contexts = [_Context(*row) for row in rows]
    who = models_name(setting.generator, setting.nli)
    return no_gain_warnings(who, contexts, "in this collection", "#seper-collection")


def seper_correlations(
    collection: Collection, params: LeaderboardParams | None = None
) -> SeperCorrelations:
    """Pearson r (p-value, n) of Delta-SePer_S / _H with each target; ``params`` are the
    evaluation's (judge, tau, k...): coverage and Recall@k are computed as on the leaderboard."""
    params = params or LeaderboardParams()
    setting = latest_setting(collection)
    result = SeperCorrelations(setting, params.k)
    if setting is None:
        result.notes.append("no SePer scores in this collection yet")
        return result
    result.warnings = _no_gain_warnings(collection, setting)
    if not isinstance(params.k, int):
        result.notes.append("k = oracle: SePer scores runs at an integer k; use one")
    per_topic = None
    if isinstance(params.k, int):
        names = list(collection.runs.order_by("name").values_list("name", flat=True))
        per_topic = per_topic_values(collection, params, names, METRIC_KEYS)
        if set(per_topic) != set(METRIC_KEYS):
            result.notes.append("no registered leaderboard column gives coverage and Recall@k")
            per_topic = None
        elif all(v is None for v in per_topic["coverage"].values()):
            result.notes.append("coverage is undefined here (e.g. no judge rated passages)")
    for name, label in DELTAS:
        deltas, labels = _utility_pairs(collection, setting, name)
        pairs = {"utility": (deltas, labels)}
        if per_topic is not None:
            x, metrics = _metric_pairs(collection, setting, params, name, per_topic)
            pairs.update({metric: (x, values) for metric, values in metrics.items()})
        else:
            pairs.update({m: ([], []) for m in ("coverage", "recall")})
        for target, description in TARGETS:
            a, b = pairs[target]
            text = f"{label} vs {description}"
            result.rows.append(CorrelationRow(name, target, text, pearson(a, b)))
    return result
