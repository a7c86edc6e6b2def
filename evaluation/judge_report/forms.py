"""The judge report page's selectors: two judges, a metric, a cutoff, bootstrap resamples; every
value is bounded, so a request the form accepts is a request the server can answer."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

from django import forms

from annotation.campaigns.setup import MAX_OVERLAP, MAX_SEED
from annotation.models import Campaign
from crux_app.inputs import collection_judges, qrels_sources
from crux_app.judge_choice import default_pair, is_human, is_machine
from crux_app.judge_ensembles import ensemble_statuses
from crux_app.models import Collection, Judge
from crux_app.read_parameters import TAU, K, whole_taus
from evaluation.judge_report.label_campaign import LabelPlan
from evaluation.judge_report.method.ranking_agreement import Bootstrap
from evaluation.judge_report.metrics import NDCG, metrics
from evaluation.judge_report.report import JudgeReportParams
from evaluation.judge_report.scores import judge_kind_text
from evaluation.leaderboard.columns import groups, judge_report_judges

MAX_K = K.maximum  # the declared read-side k's (crux_app.read_parameters)
TAUS = whole_taus()  # the declared tau's whole values
MAX_RESAMPLES = 5000
DEFAULT_PAGE_RESAMPLES = 1000
FORMATS = [("", "page"), ("json", "JSON"), ("html", "HTML report")]


def judge_names(collection: Collection) -> list[tuple[str, str]]:
    """(name, label) of the judges with passage ratings in the collection, then of the qrels
    sources that are not judges (a qrels file is one judge's labels for nDCG)."""
    judges = collection_judges(collection)
    sources = [(s, n) for s, n in qrels_sources(collection) if s not in {j.name for j in judges}]
    ensembles = ensemble_statuses(collection, [j.name for j in judges] + [s for s, _ in sources])

    def kind(name: str, default: str) -> str:
        found = ensembles.get(name)
        if found is None:
            return default
        return f"ensemble: {found.description}{', stale' if found.stale else ''}"

    names = [
        (j.name, f"{j.name} ({kind(j.name, j.kind_name)}, {j.n_judgments} ratings)") for j in judges
    ]
    names += [(s, f"{s} ({kind(s, 'qrels')}, {n} rows)") for s, n in sources]
    return names


def judge_choices(collection: Collection) -> list[tuple[str, str]]:
    """``judge_names``, then the judges that only the judge report's registered columns have
    per-topic values under (e.g. labels of another kind than passage ratings)."""
    names = judge_names(collection)
    known = {name for name, _ in names}
    extra = [n for n in judge_report_judges(collection) if n not in known]
    return names + [(n, f"{n} ({judge_kind_text(n)})") for n in extra]


def metric_choices() -> list[tuple[str, str]]:
    """nDCG and the leaderboard columns flagged for the judge report (read when a form is made:
    a method registered later is offered)."""
    return [(key, found.choice_label) for key, found in metrics().items()]


@dataclass(frozen=True)
class DefaultReport:
    """What a bare URL compares: two judges and a metric both have values under."""

    judge_a: str
    judge_b: str
    metric: str


def judge_pools(collection: Collection) -> list[tuple[str, list[str]]]:
    """(metric, the judges with values under it): nDCG over the judges with passage ratings
    or qrels, then each leaderboard group with judge report columns and declared judges (its
    first flagged column), in the leaderboard's order."""
    pools = [(NDCG, [name for name, _ in judge_names(collection)])]
    for group in groups():
        flagged = [c.key for c in group.columns if c.judge_report]
        if flagged and group.per_topic is not None and group.judges is not None:
            pools.append((flagged[0], group.judges(collection)))
    return pools


@dataclass(frozen=True)
class Candidate:
    """A judge (or qrels source) of a pool, as ``crux_app.judge_choice`` ranks it."""

    id: int
    name: str
    kind: str
    n_judgments: int = 0
    n_topics: int = 0
    degenerate: bool = False


def pool_candidates(collection: Collection, names: list[str]) -> list[Candidate]:
    """The pool's judges with their passage ratings in the collection where they have some
    (how many, on how many topics, nearly constant or not), else their kind only; a qrels
    source that is no judge is of kind "qrels"."""
    rated = {j.name: j for j in collection_judges(collection)}
    kinds = dict(Judge.objects.filter(name__in=names).values_list("name", "kind"))
    out = []
    for i, name in enumerate(names):
        j = rated.get(name)
        if j is not None:
            out.append(Candidate(i, name, j.kind, j.n_judgments, j.n_topics, j.degenerate))
        else:
            out.append(Candidate(i, name, kinds.get(name, "qrels")))
    return out


def default_judges(collection: Collection) -> DefaultReport | None:
    """``crux_app.judge_choice.default_pair`` under the first metric that has a machine judge
    and a person, else under the first that has two judges; nDCG over passage ratings comes
    first. A nearly constant judge is never picked while another is there."""
    pools = [(metric, names) for metric, names in judge_pools(collection) if names]
    pairs = [(metric, default_pair(pool_candidates(collection, names))) for metric, names in pools]
    for metric, pair in pairs:
        if pair is not None and is_machine(pair[0]) and is_human(pair[1]):
            return DefaultReport(pair[0].name, pair[1].name, metric)
    for metric, pair in pairs:
        if pair is not None:
            return DefaultReport(pair[0].name, pair[1].name, metric)
    return None


def report_defaults(collection: Collection, given: Container[str]) -> dict[str, str]:
    """The values a request leaves out: the page's and the API's defaults. The default pair's
    metric only where the request names neither judge (a named judge may lack its values)."""
    defaults = {"metric": NDCG, "k": "10", "resamples": str(DEFAULT_PAGE_RESAMPLES)}
    picked = default_judges(collection)
    if picked:
        defaults |= {"judge_a": picked.judge_a, "judge_b": picked.judge_b}
        if "judge_a" not in given and "judge_b" not in given:
            defaults["metric"] = picked.metric
    return defaults


class JudgeReportForm(forms.Form):
    judge_a = forms.ChoiceField(label="Judge A")
    judge_b = forms.ChoiceField(label="Judge B")
    metric = forms.ChoiceField(initial=NDCG)
    k = forms.IntegerField(min_value=K.minimum, max_value=MAX_K, initial=K.default)
    resamples = forms.IntegerField(
        min_value=0, max_value=MAX_RESAMPLES, initial=DEFAULT_PAGE_RESAMPLES, required=False
    )
    format = forms.ChoiceField(choices=FORMATS, required=False)

    def __init__(self, data, *, judges: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(data, **kwargs)
        self.fields["judge_a"].choices = judges
        self.fields["judge_b"].choices = judges
        self.fields["metric"].choices = metric_choices()

    def clean(self) -> dict:
        data = super().clean()
        if data.get("judge_a") and data.get("judge_a") == data.get("judge_b"):
            self.add_error("judge_b", "choose a judge other than judge A")
        return data

    def params(self) -> JudgeReportParams:
        """The report's parameters (call after is_valid())."""
        data = self.cleaned_data
        resamples = data.get("resamples")
        return JudgeReportParams(
            judge_a=data["judge_a"],
            judge_b=data["judge_b"],
            metric=data["metric"],
            k=data["k"],
            bootstrap=Bootstrap(
                resamples=DEFAULT_PAGE_RESAMPLES if resamples is None else resamples
            ),
        )


UNIT_CHOICES = [
    ("topics", "whole topics (what PPI needs)"),
    ("items", "single items (sub-question x passage)"),
]
STRATEGY_CHOICES = [
    ("random", "uniformly at random (PPI stays unbiased)"),
    ("stratified", "stratified by the judge's rating, proportional (PPI stays unbiased)"),
    ("uncertain", "where the judges are least certain (PPI becomes biased)"),
]
MEASURE_CHOICES = [
    ("disagreement", "disagreement between judges A and B"),
    ("entropy", "entropy of the judge's rating distribution"),
    ("near_tau", "ratings near tau"),
]
MAX_LABEL_N = 10_000  # topics or items; the campaign service bounds the total items too


class LabelCampaignForm(forms.Form):
    """ "Label N more topics/items": the judge report's campaign form (POST)."""

    judge_a = forms.ChoiceField()
    judge_b = forms.ChoiceField()
    k = forms.IntegerField(min_value=K.minimum, max_value=MAX_K, initial=K.default)
    unit = forms.ChoiceField(choices=UNIT_CHOICES, initial="topics")
    strategy = forms.ChoiceField(choices=STRATEGY_CHOICES, initial="random")
    measure = forms.ChoiceField(choices=MEASURE_CHOICES, initial="disagreement")
    # The declared tau's whole values (crux_app.read_parameters): ratings are whole numbers.
    tau = forms.IntegerField(
        min_value=int(TAUS[0][0]), max_value=int(TAUS[-1][0]), initial=int(TAU.default)
    )
    n = forms.IntegerField(label="N", min_value=1, max_value=MAX_LABEL_N, initial=5)
    seed = forms.IntegerField(min_value=0, max_value=MAX_SEED, initial=0)
    name = forms.CharField(max_length=200, label="Campaign name")
    overlap = forms.IntegerField(min_value=1, max_value=MAX_OVERLAP, initial=2)

    def __init__(self, data, *, judges: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(data, **kwargs)
        self.fields["judge_a"].choices = judges
        self.fields["judge_b"].choices = judges

    def clean(self) -> dict:
        data = super().clean()
        if data.get("judge_a") and data.get("judge_a") == data.get("judge_b"):
            self.add_error("judge_b", "choose a judge other than judge A")
        if data.get("name") and Campaign.objects.filter(name=data["name"]).exists():
            self.add_error("name", "a campaign of this name exists; choose another name")
        return data

    def plan(self) -> LabelPlan:
        data = self.cleaned_data
        return LabelPlan(
            judge_a=data["judge_a"],
            judge_b=data["judge_b"],
            k=data["k"],
            unit=data["unit"],
            strategy=data["strategy"],
            n=data["n"],
            seed=data["seed"],
            measure=data["measure"],
            tau=data["tau"],
        )
