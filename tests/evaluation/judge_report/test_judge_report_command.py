"""`manage.py judge_report` on a collection with an LLM judge and a person: the documented keys,
every figure against scipy / ir_measures / ppi-python on the same vectors, HTML, and errors."""

import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from ppi_py import ppi_mean_ci
from scipy.stats import kendalltau

from crux_app.models import PassageQrel
from evaluation.judge_report.method.tau_ap import tau_ap
from evaluation.leaderboard.columns import (
    COLUMN_GROUPS,
    Column,
    ColumnGroup,
    GroupValues,
    LeaderboardParams,
    per_topic_values,
)
from tests.evaluation.judge_report.two_judges import (
    HUMAN_GRADES,
    LLM_GRADES,
    expected_ndcg,
    make_two_judges,
)

pytestmark = pytest.mark.django_db


def judge_report(*args: str, collection: str = "twojudges") -> str:
    out = io.StringIO()
    call_command(
        "judge_report", "--collection", collection, "--resamples", "300", *args, stdout=out
    )
    return out.getvalue()


def test_ndcg_report_has_the_documented_keys_and_the_reference_figures():
    make_two_judges()
    data = json.loads(
        judge_report("--judges", "llm-judge", "people", "--metric", "ndcg", "--k", "3")
    )
    assert {"meta", "run_ranking", "per_topic", "swaps", "ppi"} <= set(data)
    ranking = data["run_ranking"]
    for key in ("kendall_tau", "kendall_tau_ci", "tau_ap", "n_runs", "n_topics", "runs"):
        assert key in ranking
    assert ranking["n_runs"] == 4 and ranking["n_topics"] == 4  # the person labelled t0..t3
    assert [set(r) >= {"run", "score_a", "score_b"} for r in ranking["runs"]] == [True] * 4
    assert ranking["not_measurable"] == ""

    llm = expected_ndcg(LLM_GRADES, 3)  # runs best, mid, worst, xtra x 6 topics
    human = expected_ndcg(HUMAN_GRADES, 3)
    mean_a, mean_b = llm[:, :4].mean(axis=1), human.mean(axis=1)
    assert [r["run"] for r in ranking["runs"]] == ["best", "mid", "worst", "xtra"]
    assert [r["score_a"] for r in ranking["runs"]] == pytest.approx(mean_a)
    assert [r["score_b"] for r in ranking["runs"]] == pytest.approx(mean_b)
    # Hand check of one cell: t0, run best, LLM grades 5 4 1 (2): DCG 5 + 4/log2 3 + 1/2 over
    # the ideal 5 + 4/log2 3 + 2/2.
    assert llm[0, 0] == pytest.approx((5 + 4 / np.log2(3) + 0.5) / (5 + 4 / np.log2(3) + 1))
    assert ranking["kendall_tau"] == pytest.approx(kendalltau(mean_a, mean_b).statistic)
    assert ranking["tau_ap"] == pytest.approx(tau_ap(mean_a, mean_b))  # people are the truth
    assert ranking["tau_ap_truth"] == "people" and data["meta"]["reference"] == "people"
    low, high = ranking["kendall_tau_ci"]
    assert -1 <= low <= high <= 1

    topics = data["per_topic"]["topics"]
    assert [t["topic"] for t in topics] == ["t0", "t1", "t2", "t3"]
    for i, t in enumerate(topics):
        expected = kendalltau(llm[:, i], human[:, i]).statistic
        assert t["tau"] == (None if np.isnan(expected) else pytest.approx(expected))
    assert (
        sum(data["per_topic"]["histogram"]["counts"]) == data["per_topic"]["summary"]["n_defined"]
    )

    for swap in data["swaps"]:
        first = ["best", "mid", "worst", "xtra"].index(swap["run_1"])
        second = ["best", "mid", "worst", "xtra"].index(swap["run_2"])
        assert mean_a[first] > mean_a[second] and mean_b[first] < mean_b[second]
        assert swap["significant_a"] == (swap["p_a"] is not None and swap["p_a"] < 0.05)

    ppi = data["ppi"]
    assert ppi["judge"] == "llm-judge" and ppi["reference"] == "people"
    assert ppi["labelled_topics"] == ["t0", "t1", "t2", "t3"]
    assert ppi["sampling_check"]["n_labelled"] == 4 and "random" in ppi["assumption"]
    best = next(r for r in ppi["runs"] if r["run"] == "best")
    assert best["judge_only"]["estimate"] == pytest.approx(llm[0].mean())
    assert best["judge_only"]["n"] == 6 and best["human_only"]["n"] == 4
    low, high = ppi_mean_ci(human[0], llm[0, :4], llm[0, 4:], alpha=0.05)
    assert best["ppi"]["ci"] == pytest.approx([low[0], high[0]])
    assert best["ppi"]["n"] == 4 and best["ppi"]["n_unlabelled"] == 2


def test_identical_judges_agree_perfectly_and_swapped_roles_keep_the_reference():
    make_two_judges()
    data = json.loads(judge_report("--judges", "people", "llm-judge", "--k", "3"))
    ranking = data["run_ranking"]
    # A is now the person: still the reference; score_a stays judge A's.
    assert data["meta"]["reference"] == "people" and ranking["tau_ap_truth"] == "people"
    human = expected_ndcg(HUMAN_GRADES, 3)
    assert [r["score_a"] for r in ranking["runs"]] == pytest.approx(human.mean(axis=1))
    assert data["ppi"]["judge"] == "llm-judge"


def test_a_qrels_source_named_like_a_judge_gives_its_grades():
    two = make_two_judges()
    # "nist" qrels on t0..t3 with the person's grades: the same nDCG as the person's ratings.
    PassageQrel.objects.bulk_create(
        PassageQrel(topic=two.topics[i], passage=two.passages[i][j], grade=g, source="nist")
        for i, row in enumerate(HUMAN_GRADES)
        for j, g in enumerate(row)
    )
    data = json.loads(judge_report("--judges", "nist", "people", "--k", "3"))
    ranking = data["run_ranking"]
    assert ranking["kendall_tau"] == pytest.approx(1.0) and ranking["tau_ap"] == pytest.approx(1.0)
    assert ranking["kendall_tau_ci"] == pytest.approx([1.0, 1.0])
    assert data["swaps"] == []
    assert data["meta"]["judges"]["a"]["kind"] == "qrels"


def test_coverage_comes_from_the_leaderboard_registry():
    two = make_two_judges()
    args = ("--judges", "llm-judge", "people", "--metric", "coverage", "--k", "1")
    data = json.loads(judge_report(*args))
    runs = ["best", "mid", "worst", "xtra"]

    def table(judge: str) -> np.ndarray:
        params = LeaderboardParams(judge=judge, k=1)
        values = per_topic_values(two.collection, params, runs, ["coverage"])["coverage"]
        cells = [[values[(run, t.pk)] for t in two.topics] for run in runs]
        return np.array([[np.nan if v is None else v for v in row] for row in cells])

    llm, human = table("llm-judge"), table("people")
    common = np.isfinite(human).all(axis=0) & np.isfinite(llm).all(axis=0)
    mean_a, mean_b = llm[:, common].mean(axis=1), human[:, common].mean(axis=1)
    ranking = data["run_ranking"]
    assert ranking["n_topics"] == int(common.sum()) == 4
    assert [r["score_a"] for r in ranking["runs"]] == pytest.approx(mean_a)
    assert [r["score_b"] for r in ranking["runs"]] == pytest.approx(mean_b)
    assert ranking["kendall_tau"] == pytest.approx(kendalltau(mean_a, mean_b).statistic)
    best = next(r for r in data["ppi"]["runs"] if r["run"] == "best")
    assert best["judge_only"]["n"] == int(np.isfinite(llm[0]).sum())
    assert best["judge_only"]["estimate"] == pytest.approx(np.nanmean(llm[0]))
    assert data["meta"]["metric_label"] == "Coverage@1"


def test_alpha_ndcg_reads_whatever_group_registers_it_per_topic():
    two = make_two_judges()
    by_judge = {"llm-judge": 0.5, "people": 0.25}

    def per_topic(collection, params: LeaderboardParams, run_names):
        base = by_judge[params.judge]
        return {
            "alpha_ndcg": {
                (run, t.pk): base + 0.1 * r + 0.01 * i
                for r, run in enumerate(run_names)
                for i, t in enumerate(two.topics)
            }
        }

    group = ColumnGroup(
        key="zz_judge_report_test",
        columns=(Column("alpha_ndcg", "alpha"),),
        compute=lambda c, p, r: GroupValues({}),
        per_topic=per_topic,
    )
    COLUMN_GROUPS.register(group)
    try:
        data = json.loads(judge_report("--judges", "llm-judge", "people", "--metric", "alpha_ndcg"))
    finally:
        COLUMN_GROUPS.unregister(group.key)
    ranking = data["run_ranking"]
    assert ranking["n_topics"] == 6 and ranking["kendall_tau"] == pytest.approx(1.0)
    assert [r["score_a"] for r in ranking["runs"]] == pytest.approx([0.525, 0.625, 0.725, 0.825])


def test_html_is_self_contained():
    make_two_judges()
    html = judge_report("--judges", "llm-judge", "people", "--k", "3", "--format", "html")
    assert html.startswith("<!doctype html>") and "Plotly.newPlot" in html
    assert "judge-scatter" in html and "tau-histogram" in html
    assert "https://" not in html.split("</head>")[0].split("<script>")[0]
    assert 'src="http' not in html and "<link" not in html


def test_out_file_without_resamples_and_topics_without_relevant_passages(tmp_path):
    two = make_two_judges()
    for topic in two.topics[4:]:
        topic.judgments.filter(judge=two.llm).update(rating=0)
    out = tmp_path / "report.json"
    err = io.StringIO()
    call_command(
        "judge_report",
        "--collection",
        "twojudges",
        "--judges",
        "llm-judge",
        "people",
        "--resamples",
        "0",
        "--out",
        str(out),
        stderr=err,
    )
    data = json.loads(out.read_text())
    assert data["run_ranking"]["kendall_tau_ci"] is None  # no resamples
    assert "wrote" in err.getvalue()
    # t4 and t5 now have no relevant passage under the LLM: nDCG undefined there.
    assert data["ppi"]["runs"][0]["judge_only"]["n"] == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judges", "llm-judge", "nobody"], "'nobody' has neither passage ratings"),
        (["--judges", "people", "people"], "two different judges"),
        (["--judges", "llm-judge", "people", "--k", "0"], "'k' must be an integer in 1..1000"),
        (["--judges", "llm-judge", "people", "--resamples", "-1"], "--resamples"),
    ],
)
def test_errors_name_what_exists(args, message):
    make_two_judges()
    with pytest.raises(CommandError, match=message):
        judge_report(*args)


def test_an_unknown_collection_lists_the_existing_ones():
    make_two_judges()
    with pytest.raises(CommandError, match="collections: 'twojudges'"):
        judge_report("--judges", "a", "b", collection="nope")
