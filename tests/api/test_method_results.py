"""Each method's stored results through the API, per query (not only aggregates): DENSE,
SePer, LLM-retEval and SCAAR as JSON pages and CSV, with the same numbers as their commands,
their filters by name (a 400 naming the parameter), and only for researchers' tokens."""

import csv
import io
import json
from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import GeneratedOutput
from evaluation.reteval.models import RetEvalResult
from evaluation.scaar.models import ScaarAnalysis
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db


def _csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def _errors(response) -> dict:
    assert response.status_code == 400, response.content
    return response.json()["errors"]


@pytest.fixture
def dense():
    data = make_dense_data()
    run_job(data, RuleModels().models())
    return data


@pytest.fixture
def seper():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    return data


@pytest.fixture
def reteval():
    data = make_reteval_collection("qa-reteval")
    run_scenario(data)
    return data


def _analysis(collection, output, key="a1", before=0.1, after=0.4):
    return ScaarAnalysis.objects.create(
        key=key, output=output, collection=collection, topic=output.topic,
        generator="g", embedder="e", logprob_source="stored", n_sentences=1, n_retrievals=2,
        flare_retrievals=1, score_metric="f1", score_before=before, score_after=after,
        params={"theta0": 0.8, "alpha": 0.5, "weighting": "raw", "k": 2},
        detail={"sentences": [], "flare": {"refined_text": "y", "score_after": 0.3}},
    )  # fmt: skip


def test_dense_records_per_question_as_the_command(api, dense):
    url = "/api/v1/collections/dense-qa/dense/"
    body = api.get(url, {"k": "3"}).json()
    out = StringIO()
    call_command("dense", "--collection", "dense-qa", "--k", "3", stdout=out)
    assert body["count"] == 2
    assert body["results"] == json.loads(out.getvalue())
    assert {r["topic"] for r in body["results"]} == {"q1", "q2"}
    one = api.get(url, {"topic": "q1", "run": "bm25"}).json()
    assert [r["topic"] for r in one["results"]] == ["q1"] and one["results"][0]["W"]
    paged = api.get(url, {"page_size": "1"}).json()
    assert len(paged["results"]) == 1 and paged["next"]
    rows = _csv(api.get(url, {"format": "csv"}))
    assert len(rows) == 2 and {"dse", "uncertain", "answer", "final_answer"} <= set(rows[0])
    assert "W" not in rows[0]
    summary = api.get("/api/v1/collections/dense-qa/dense/summary/").json()
    assert summary["results"][0]["run"] == "bm25" and summary["results"][0]["n"] == 2
    assert "run" in _errors(api.get(url, {"run": "nope"}))
    assert "topic" in _errors(api.get(url, {"topic": "nope"}))
    assert "k" in _errors(api.get(url, {"k": "0"}))
    assert "k" in _errors(api.get(url, {"k": "²"}))
    assert "page" in _errors(api.get(url, {"page": "9"}))
    assert api.get("/api/v1/collections/nowhere/dense/").status_code == 404


def test_seper_scores_per_question_and_context(api, seper):
    url = "/api/v1/collections/qa-seper/seper/"
    body = api.get(url).json()
    stored = SeperScore.objects.filter(topic__collection=seper.collection)
    assert body["count"] == stored.count() > 0
    by_context = {}
    for row in body["results"]:
        by_context.setdefault(row["context"], []).append(row)
    assert {"none", "passage", "run", "oracle"} <= set(by_context)
    baseline = stored.get(context_kind="none")
    assert by_context["none"][0]["seper_s"] == pytest.approx(baseline.seper_s)
    assert by_context["none"][0]["delta_s"] is None
    passages = api.get(url, {"context": "passage"}).json()["results"]
    assert {r["passage"] for r in passages} == {"d0", "d1"}  # the run's top-2
    on_run = api.get(url, {"run": "bm25", "k": "2", "topic": "q1"}).json()["results"]
    assert on_run and {(r["run"], r["k"]) for r in on_run} == {("bm25", 2)}
    rows = _csv(api.get(url, {"format": "csv"}))
    assert len(rows) == body["count"] and "params.n_samples" in rows[0]
    assert "context" in _errors(api.get(url, {"context": "everything"}))
    assert "run" in _errors(api.get(url, {"run": "x\x00"}))

    correlations = api.get("/api/v1/collections/qa-seper/seper/correlations/", {"k": "2"})
    assert correlations.status_code == 200, correlations.content
    data = correlations.json()
    assert data["k"] == 2 and {r["target"] for r in data["correlations"]} >= {"utility"}
    assert [r["run"] for r in data["runs"]] == ["bm25"]
    for tau in ("nan", "0", "7"):
        bad = api.get("/api/v1/collections/qa-seper/seper/correlations/", {"tau": tau})
        assert "tau" in _errors(bad)
    bad = api.get("/api/v1/collections/qa-seper/seper/correlations/", {"judge": "nobody"})
    assert "__all__" in _errors(bad)


def test_reteval_results_per_question_and_the_table(api, reteval):
    url = "/api/v1/collections/qa-reteval/reteval/"
    body = api.get(url).json()
    assert body["count"] == RetEvalResult.objects.count() == 6  # 3 questions x k 1, 2
    q1 = api.get(url, {"topic": "q1", "k": "1"}).json()["results"]
    (row,) = q1
    stored = RetEvalResult.objects.get(topic__external_id="q1", k=1)
    assert (row["recall"], row["verdict"], row["judge"]) == (1.0, stored.verdict, stored.judge)
    assert row["answer"] == stored.rag_output.text
    rows = _csv(api.get(url, {"format": "csv", "k": "2"}))
    assert sorted(r["topic"] for r in rows) == ["q1", "q2", "q3"]
    assert "judge" in _errors(api.get(url, {"judge": "nobody"}))
    assert "category" in _errors(api.get(url, {"category": "Z"}))

    table = api.get("/api/v1/collections/qa-reteval/reteval/table/").json()
    assert [(r["run"], r["k"]) for r in table["rows"]] == [("bm25", 1), ("bm25", 2)]
    assert table["rows"][0]["questions"] == 3
    csv_rows = _csv(api.get("/api/v1/collections/qa-reteval/reteval/table/", {"format": "csv"}))
    assert {r["k"] for r in csv_rows} == {"1", "2"}
    assert "run" in _errors(api.get("/api/v1/collections/qa-reteval/reteval/table/", {"run": "x"}))


def test_scaar_answers_and_summary(api, reteval):
    outputs = GeneratedOutput.objects.filter(collection=reteval.collection).order_by("pk")
    first, second = outputs[0], outputs[1]
    _analysis(reteval.collection, first, "a1", 0.1, 0.4)
    _analysis(reteval.collection, second, "a2", 0.2, 0.2)
    url = "/api/v1/collections/qa-reteval/scaar/"
    body = api.get(url).json()
    assert body["count"] == 2
    assert {r["output"] for r in body["results"]} == {first.external_id, second.external_id}
    assert body["results"][0]["sentences"] == []
    one = api.get(url, {"output": first.external_id}).json()["results"]
    assert [(r["score_before"], r["score_after"]) for r in one] == [(0.1, 0.4)]
    rows = _csv(api.get(url, {"format": "csv"}))
    assert len(rows) == 2 and json.loads(rows[0]["settings"])["theta0"] == 0.8
    assert "output" in _errors(api.get(url, {"output": "nope"}))
    summary = api.get("/api/v1/collections/qa-reteval/scaar/summary/").json()["summaries"]
    assert sum(s["n_answers"] for s in summary) == 2


METHOD_URLS = [
    "/api/v1/collections/{}/dense/",
    "/api/v1/collections/{}/dense/summary/",
    "/api/v1/collections/{}/seper/",
    "/api/v1/collections/{}/seper/correlations/",
    "/api/v1/collections/{}/reteval/",
    "/api/v1/collections/{}/reteval/table/",
    "/api/v1/collections/{}/scaar/",
    "/api/v1/collections/{}/scaar/summary/",
]


@pytest.mark.parametrize("template", METHOD_URLS)
def test_only_researchers_read_method_results(api, annotator_api, client, reteval, template):
    url = template.format("qa-reteval")
    assert api.get(url).status_code == 200
    assert annotator_api.get(url).status_code == 403
    assert client.get(url).status_code in (401, 403)
    assert api.get(url, {"format": "csv"}).status_code == 200
