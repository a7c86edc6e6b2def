"""Results as data: the leaderboard (JSON and CSV) with the page's choices, from the page's
service."""

import csv
import io

import pytest

from evaluation.leaderboard.board_cache import leaderboard, page_inputs
from evaluation.leaderboard.columns import LeaderboardParams
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db


def test_leaderboard_json_uses_ir_measures_names_and_the_pages_numbers(api):
    small = make_small_collection("duc04")
    body = api.get("/api/v1/collections/duc04/leaderboard/", {"k": "5", "sort": "run"}).json()
    assert body["k"] == 5
    assert {"nDCG@5", "AP", "R@5", "Rprec", "coverage@5", "alpha_nDCG@5"} <= set(body["metrics"])
    assert [r["run"] for r in body["runs"]] == ["bm25", "dense"]
    inputs = page_inputs(small.collection)
    board = leaderboard(small.collection, LeaderboardParams(k=5), "run", False, inputs.depths)
    by_run = {r["run"]: r for r in board.rows}
    for row in body["runs"]:
        assert row["metrics"]["nDCG@5"] == pytest.approx(by_run[row["run"]]["ndcg"])
        assert row["metrics"]["AP"] == pytest.approx(by_run[row["run"]]["map"])


def test_leaderboard_csv(api):
    make_small_collection("duc04")
    response = api.get("/api/v1/collections/duc04/leaderboard/", {"format": "csv", "qrels": ""})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted(r["run"] for r in rows) == ["bm25", "dense"]
    assert "nDCG@10" in rows[0]


@pytest.mark.parametrize(
    ("query", "field"),
    [({"k": "0"}, "k"), ({"judge": "nobody"}, "judge"), ({"qrels": "nope"}, "qrels_source")],
)
def test_leaderboard_names_a_bad_choice(api, query, field):
    make_small_collection("duc04")
    response = api.get("/api/v1/collections/duc04/leaderboard/", query)
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_judgments_of_a_judge_paged_and_as_csv(api):
    small = make_small_collection("duc04")
    expected = small.llm.judgments.count()
    body = api.get("/api/v1/collections/duc04/judgments/", {"judge": "smollm"}).json()
    assert body["count"] == expected > 0
    row = body["results"][0]
    assert row["judge"] == "smollm" and row["topic"] == "duc04-testb-3"
    assert {"position", "passage", "rating", "task"} <= set(row)
    one = api.get("/api/v1/collections/duc04/judgments/", {"judge": "smollm", "page_size": 1})
    assert len(one.json()["results"]) == 1 and one.json()["next"]
    text = api.get(
        "/api/v1/collections/duc04/judgments/", {"judge": "smollm", "format": "csv"}
    ).content.decode()
    assert len(list(csv.DictReader(io.StringIO(text)))) == expected
    bad = api.get("/api/v1/collections/duc04/judgments/", {"judge": "nobody"})
    assert bad.status_code == 400 and "judge" in bad.json()["errors"]


def test_qrels_of_a_source(api):
    make_small_collection("duc04")
    body = api.get("/api/v1/collections/duc04/qrels/", {"source": "imported"}).json()
    assert body["count"] == 2
    assert sorted(r["grade"] for r in body["results"]) == [2, 3]
    judges = api.get("/api/v1/collections/duc04/judges/").json()
    assert {"smollm", "annotator1"} <= {j["name"] for j in judges}


def test_csv_cells_are_neutralised(api):
    small = make_small_collection("duc04")
    small.llm.judgments.update(rationale="=HYPERLINK(1)")
    text = api.get(
        "/api/v1/collections/duc04/judgments/", {"judge": "smollm", "format": "csv"}
    ).content.decode()
    assert "'=HYPERLINK(1)" in text


def test_coverage_matrix_of_a_topic(api):
    make_small_collection("duc04")
    url = "/api/v1/collections/duc04/topics/duc04-testb-3/coverage-matrix/"
    body = api.get(url, {"judge": "smollm", "run": "bm25", "k": "3"}).json()
    assert body["topic"] == "duc04-testb-3" and body["run"] == "bm25"
    assert len(body["ratings"]) == len(body["judges"])
    assert len(body["rows"]) == 3  # 4 positions, one placeholder
    assert "judge" in api.get(url, {"judge": "nobody"}).json()["errors"]
    assert api.get("/api/v1/collections/duc04/topics/nope/coverage-matrix/").status_code == 404


def test_agreement_and_judge_reports_are_json(api):
    make_small_collection("duc04")
    agreement = api.get("/api/v1/collections/duc04/agreement/")
    assert agreement.status_code == 200, agreement.content
    assert {"meta", "inter_annotator", "human_vs_llm"} <= set(agreement.json())
    as_csv = api.get("/api/v1/collections/duc04/agreement/", {"format": "csv"})
    assert as_csv.content.decode().startswith("section,task,statistic,value")
    report = api.get("/api/v1/collections/duc04/judge-report/", {"resamples": "10"})
    assert report.status_code == 200, report.content
    assert report.json()["meta"]["collection"] == "duc04"
    bad = api.get("/api/v1/collections/duc04/judge-report/", {"metric": "nope"})
    assert bad.status_code == 400 and "metric" in bad.json()["errors"]


def test_per_topic_values_as_the_evaluate_command(api):
    make_small_collection("duc04")
    body = api.get("/api/v1/collections/duc04/per-topic/", {"k": "5", "run": "bm25"}).json()
    (run,) = body["runs"]
    assert run["run"] == "bm25"
    assert {t["topic"] for t in run["per_topic"]} == {"duc04-testb-3", "duc04-testb-7"}
    text = api.get("/api/v1/collections/duc04/per-topic/", {"format": "csv"}).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {(r["run"], r["topic"]) for r in rows} >= {("bm25", "duc04-testb-3")}
    for name in ("nope", "1\x00"):
        bad = api.get("/api/v1/collections/duc04/per-topic/", {"run": name})
        assert bad.status_code == 400 and "run" in bad.json()["errors"]
