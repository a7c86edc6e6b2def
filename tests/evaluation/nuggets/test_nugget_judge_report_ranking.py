"""Run-ranking agreement on nugget scores through the judge report: the command and the page offer
the nugget columns as metrics and compare a person's and an LLM's run rankings, hand-computed on
four runs whose two top runs the judges order differently."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy.stats import kendalltau

from crux_app.models import Collection
from evaluation.judge_report.metrics import metric_keys
from tests.evaluation.nuggets.nugget_files import write_lines

pytestmark = pytest.mark.django_db
NAME = "ranked-tides"
RUNS = ("r1", "r2", "r3", "r4")
# t1: two vital nuggets and an okay one; t2: one vital, one okay.
NUGGETS = {
    "t1": [("Moon pulls", "vital"), ("Sun pulls", "vital"), ("Spring tides", "okay")],
    "t2": [("Choux pastry", "vital"), ("Cream filled", "okay")],
}
S, P, N = "support", "partial_support", "not_support"
# run -> topic -> assignment of each nugget. The LLM ranks r1 > r2 > r3 > r4 on the vital score
# (means 1, 0.5, 0.125, 0); the person swaps the top two (r1 0.5, r2 1, r3 0.125, r4 0).
LLM = {
    "r1": {"t1": (S, S, N), "t2": (S, N)},
    "r2": {"t1": (S, N, S), "t2": (P, S)},
    "r3": {"t1": (P, N, N), "t2": (N, N)},
    "r4": {"t1": (N, N, S), "t2": (N, S)},
}
HUMAN = {
    "r1": {"t1": (S, N, N), "t2": (P, N)},
    "r2": {"t1": (S, S, S), "t2": (S, S)},
    "r3": {"t1": (P, N, N), "t2": (N, N)},
    "r4": {"t1": (N, N, N), "t2": (N, N)},
}
LLM_VITAL = [1.0, 0.5, 0.125, 0.0]
HUMAN_VITAL = [0.5, 1.0, 0.125, 0.0]


def _load(tmp_path) -> Collection:
    nuggets = [
        {
            "qid": topic,
            "query": f"question {topic}",
            "nuggets": [{"text": text, "importance": imp} for text, imp in listed],
        }
        for topic, listed in NUGGETS.items()
    ]
    answers = [
        {
            "run_id": run,
            "topic_id": topic,
            "topic": f"question {topic}",
            "references": [f"{run}-{topic}"],
            "response_length": 3,
            "answer": [{"text": f"Answer of {run}.", "citations": [0]}],
        }
        for run in RUNS
        for topic in NUGGETS
    ]
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "n.jsonl", nuggets))
    call_command("import_answers", "--collection", NAME, write_lines(tmp_path / "a.jsonl", answers))
    for judge, kind, labels in (("gpt", "llm", LLM), ("amy", "human", HUMAN)):
        lines = [
            {
                "qid": topic,
                "run_id": run,
                "nuggets": [
                    {"text": text, "importance": imp, "assignment": grade}
                    for (text, imp), grade in zip(NUGGETS[topic], grades, strict=True)
                ],
            }
            for run, by_topic in labels.items()
            for topic, grades in by_topic.items()
        ]
        path = write_lines(tmp_path / f"{judge}.jsonl", lines)
        args = ("--collection", NAME, "--judge", judge, "--kind", kind, str(path))
        call_command("import_nugget_assignments", *args)
    return Collection.objects.get(name=NAME)


def _check_ranking(data: dict) -> None:
    ranking = data["run_ranking"]
    assert (ranking["n_runs"], ranking["n_topics"]) == (4, 2)
    assert [r["run"] for r in ranking["runs"]] == list(RUNS)
    assert [r["score_a"] for r in ranking["runs"]] == pytest.approx(LLM_VITAL)
    assert [r["score_b"] for r in ranking["runs"]] == pytest.approx(HUMAN_VITAL)
    # One discordant pair (r1, r2) of six: (5 - 1) / 6.
    assert ranking["kendall_tau"] == pytest.approx(2 / 3)
    assert ranking["kendall_tau"] == pytest.approx(kendalltau(LLM_VITAL, HUMAN_VITAL).statistic)
    # tau-AP of the LLM's list against the person's truth: C(2..4) = 0, 2, 3 -> 2/3 * 2 - 1.
    assert data["meta"]["reference"] == "amy" and ranking["tau_ap"] == pytest.approx(1 / 3)
    assert data["meta"]["metric"] == "nuggets_vital"
    assert data["meta"]["metric_label"] == "Nuggets vital"
    assert "nugget assignments" in data["meta"]["metric_basis"]


def test_the_command_offers_and_computes_a_nugget_metric(tmp_path):
    _load(tmp_path)
    assert {"nuggets_strict_vital", "nuggets_strict_all", "nuggets_vital", "nuggets_all"} <= set(
        metric_keys()
    )
    out = io.StringIO()
    args = ("--collection", NAME, "--judges", "gpt", "amy", "--metric", "nuggets_vital")
    call_command("judge_report", *args, "--resamples", "50", stdout=out)
    _check_ranking(json.loads(out.getvalue()))


def test_the_page_offers_the_nugget_judges_and_metrics_and_computes_them(
    tmp_path, researcher_client
):
    collection = _load(tmp_path)
    url = reverse("judge-report", args=[collection.pk])
    query = {"judge_a": "gpt", "judge_b": "amy", "metric": "nuggets_vital", "resamples": "50"}
    response = researcher_client.get(url, query)
    assert response.status_code == 200
    form = response.context["form"]
    assert {"gpt", "amy"} <= {name for name, _ in form.fields["judge_a"].choices}
    assert ("nuggets_all", "Nuggets all") in form.fields["metric"].choices
    body = response.content.decode()
    assert '<option value="nuggets_vital" selected>Nuggets vital</option>' in body
    _check_ranking(response.context["data"])
    download = researcher_client.get(url, {**query, "format": "json"})
    assert download.status_code == 200
    _check_ranking(json.loads(download.content))


def test_nugget_judges_without_passage_ratings_have_no_ndcg(tmp_path, researcher_client):
    collection = _load(tmp_path)
    url = reverse("judge-report", args=[collection.pk])
    query = {"judge_a": "gpt", "judge_b": "amy", "metric": "ndcg", "resamples": "0"}
    response = researcher_client.get(url, query)
    assert response.status_code == 400
    assert "has neither passage ratings nor passage qrels" in response.content.decode()


def test_a_bare_url_compares_the_nugget_judges_on_a_nugget_metric(
    tmp_path, researcher_client, researcher
):
    from api.tokens import issue_token
    from tests.api.conftest import TokenClient

    collection = _load(tmp_path)
    response = researcher_client.get(
        reverse("judge-report", args=[collection.pk]), {"resamples": "20"}
    )
    assert response.status_code == 200
    meta = response.context["data"]["meta"]
    assert (meta["judges"]["a"]["name"], meta["judges"]["b"]["name"]) == ("gpt", "amy")
    assert meta["metric"] == "nuggets_strict_vital"
    # strict vital, means over t1 and t2: the LLM 1, 0.25, 0, 0; the person 0.25, 1, 0, 0.
    runs = response.context["data"]["run_ranking"]["runs"]
    assert [r["score_a"] for r in runs] == pytest.approx([1.0, 0.25, 0.0, 0.0])
    assert [r["score_b"] for r in runs] == pytest.approx([0.25, 1.0, 0.0, 0.0])
    # The API's bare request makes the same choice.
    api = TokenClient(issue_token(researcher, "tests")[1])
    data = api.get(f"/api/v1/collections/{NAME}/judge-report/", {"resamples": "20"}).json()
    assert (data["meta"]["judges"]["a"]["name"], data["meta"]["metric"]) == (
        "gpt",
        "nuggets_strict_vital",
    )
