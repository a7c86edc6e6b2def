"""The judge report page's selectors: two judges, a metric, a cutoff, bootstrap resamples; every
value is bounded, so a request the form accepts is a request the server can answer."""

from __future__ import annotations

from django import forms

from crux_app.inputs import collection_judges, qrels_sources
from crux_app.models import Collection
from evaluation.judge_report.method.ranking_agreement import Bootstrap
from evaluation.judge_report.report import JudgeReportParams
from evaluation.judge_report.scores import METRIC_LABELS, METRICS

MAX_K = 1000  # the deepest cutoff a page evaluates (as the leaderboard's)
MAX_RESAMPLES = 5000
DEFAULT_PAGE_RESAMPLES = 1000
FORMATS = [("", "page"), ("json", "JSON"), ("html", "HTML report")]


def judge_names(collection: Collection) -> list[tuple[str, str]]:
    """(name, label) of the judges with passage ratings in the collection, then of the qrels
    sources that are not judges (a qrels file is one judge's labels for nDCG)."""
    judges = collection_judges(collection)
    names = [(j.name, f"{j.name} ({j.kind}, {j.n_judgments} ratings)") for j in judges]
    known = {j.name for j in judges}
    names += [(s, f"{s} (qrels, {n} rows)") for s, n in qrels_sources(collection) if s not in known]
    return names


def default_judges(collection: Collection) -> tuple[str, str] | None:
    """An LLM judge as A and a person as B when there are both, else the first two judges."""
    judges = collection_judges(collection)
    llm = [j.name for j in judges if j.kind == "llm"]
    human = [j.name for j in judges if j.kind == "human"]
    if llm and human:
        return llm[0], human[0]
    names = [name for name, _ in judge_names(collection)]
    return (names[0], names[1]) if len(names) >= 2 else None


class JudgeReportForm(forms.Form):
    judge_a = forms.ChoiceField(label="Judge A")
    judge_b = forms.ChoiceField(label="Judge B")
    metric = forms.ChoiceField(
        choices=[(m, METRIC_LABELS[m].replace("@{k}", "@k")) for m in METRICS], initial="ndcg"
    )
    k = forms.IntegerField(min_value=1, max_value=MAX_K, initial=10)
    resamples = forms.IntegerField(
        min_value=0, max_value=MAX_RESAMPLES, initial=DEFAULT_PAGE_RESAMPLES, required=False
    )
    format = forms.ChoiceField(choices=FORMATS, required=False)

    def __init__(self, data, *, judges: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(data, **kwargs)
        self.fields["judge_a"].choices = judges
        self.fields["judge_b"].choices = judges

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
