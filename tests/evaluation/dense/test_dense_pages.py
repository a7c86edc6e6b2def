"""DENSE pages, judgment forms, agreement sources, leaderboard column and command on rows
stored by a job on the rule-based models."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from evaluation.agreement.report import build_report
from evaluation.agreement.sources import sources
from evaluation.crux.evaluate import EvaluationParams
from evaluation.dense.leaderboard_columns import uncertain_share
from evaluation.dense.models import DenseLabel, DenseResult
from evaluation.leaderboard.columns import column_keys
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored():
    data = make_dense_data()
    run_job(data, RuleModels().models())
    return data


def test_topic_page_shows_graph_chunks_refinement_and_forms(researcher_client, stored):
    url = reverse("dense-topic", args=[stored.collection.pk, stored.capital.pk])
    response = researcher_client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="dense-graph-plot"' in html and "dense-graph-data" in html
    assert 'id="dense-dse">0.693<' in html and ">uncertain<" in html
    for label in ("necessary", "certain", "unnecessary"):
        assert f'class="label-{label}">{label}<' in html
    assert "The capital is Lyon." in html  # a rephrased chunk
    assert 'id="dense-final-answer">Paris<' in html
    assert html.count('name="kind" value="rephrase_faithful"') == 3
    # Pairs with different texts: r0-r1, r0-r3, r1-r2, r2-r3.
    assert html.count('name="kind" value="response_equivalent"') == 4


def test_pages_need_a_researcher(client, annotator, stored):
    client.force_login(annotator)
    url = reverse("dense-topic", args=[stored.collection.pk, stored.capital.pk])
    assert client.get(url).status_code == 403


def test_collection_page_figures(researcher_client, stored):
    response = researcher_client.get(reverse("dense-collection", args=[stored.collection.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "1 (0.50)" in html  # one of two questions uncertain
    assert "dense-histogram-data" in html and "dense-accuracy-data" in html
    start = researcher_client.get(reverse("dense-start", args=[stored.collection.pk]))
    assert start.status_code == 200 and "Start DENSE job" in start.content.decode()


def test_start_form_refuses_a_pool_smaller_than_k(researcher_client, stored):
    url = reverse("dense-start", args=[stored.collection.pk])
    data = {"run": stored.run.pk, "k": 5, "threshold": 0.2, "max_steps": 2, "pool": 3}
    response = researcher_client.post(url, data)
    assert response.status_code == 400
    assert "at least k passages" in response.content.decode()


def test_labels_are_stored_with_the_machine_decision(researcher_client, stored):
    result = DenseResult.objects.get(topic=stored.capital)
    url = reverse("dense-topic-label", args=[stored.collection.pk, stored.capital.pk])
    post = {"result": result.pk, "kind": "rephrase_faithful", "i": 2, "j": 0, "answer": "no"}
    response = researcher_client.post(url, post)
    assert 'data-judged="no"' in response.content.decode()
    label = DenseLabel.objects.get()
    assert label.value is False and label.machine_decision is True  # judge: faithful
    researcher_client.post(url, {**post, "answer": "yes"})
    assert DenseLabel.objects.get().value is True  # updated, not duplicated
    bad = researcher_client.post(url, {**post, "i": 9})
    assert f"Result {result.pk} has no chunk 9." in bad.content.decode()
    pair = {"result": result.pk, "kind": "response_equivalent", "i": 0, "j": 1, "answer": "no"}
    researcher_client.post(url, pair)
    assert DenseLabel.objects.get(kind="response_equivalent").machine_decision is False


def test_agreement_report_compares_researchers_with_the_nli_judge(researcher, stored):
    from evaluation.dense.labels import record_label

    result = DenseResult.objects.get(topic=stored.capital)
    # Judge: faithful = [False, True, False]; the researcher agrees on 2 of 3.
    for i, value in ((1, False), (2, True), (3, True)):
        record_label(researcher, result, "rephrase_faithful", i, 0, value)
    record_label(researcher, result, "response_equivalent", 0, 1, False)
    assert {s.key: s.available for s in sources()}["dense_rephrase"]
    report = build_report(stored.collection)
    tasks = {t.key: t for t in report.tasks}
    assert tasks["dense_rephrase"].n_items == 4  # 3 chunks of q1, 1 of q2 (machine only)
    records = [r.as_dict() for r in report.human_vs_llm if r.task == "dense_rephrase"]
    agreement = next(r for r in records if r["statistic"] == "percent_agreement")
    assert agreement["value"] == pytest.approx(2 / 3) and agreement["n"] == 3
    response = [r.as_dict() for r in report.human_vs_llm if r.task == "dense_response"]
    assert next(r for r in response if r["statistic"] == "percent_agreement")["value"] == 1.0
    assert any(d.task == "dense_rephrase" for d in report.disagreements)
    out = StringIO()
    call_command("agreement", "--collection", "dense-qa", "--format", "json", "--resamples", "50",
                 stdout=out)  # fmt: skip
    exported = json.loads(out.getvalue())["human_vs_llm"]
    assert any(
        r["task"] == "dense_rephrase"
        and r["statistic"] == "percent_agreement"
        and r["value"] == pytest.approx(2 / 3)
        for r in exported
    )


def test_leaderboard_column_reads_the_uncertain_share(stored):
    assert "dense_uncertain_share" in column_keys()
    values = uncertain_share(stored.collection, EvaluationParams(k=10), ["bm25", "other"])
    assert values == {"bm25": 0.5, "other": None}


def test_command_prints_one_record_per_question(stored):
    out = StringIO()
    call_command("dense", "--collection", "dense-qa", "--run", "bm25", "--k", "3",
                 "--format", "json", stdout=out)  # fmt: skip
    records = json.loads(out.getvalue())
    assert [r["topic"] for r in records] == ["q1", "q2"]
    first = records[0]
    assert first["question"] == stored.capital.request
    assert first["dse"] == pytest.approx(0.6931, abs=1e-4)
    assert len(first["W"]) == 4 and first["W"][0] == [1.0, 0.0, 1.0, 0.0]
    assert first["labels"] == ["necessary", "certain", "unnecessary"]
    assert first["answers"]["original"] == "Paris"
    assert first["answers"]["rephrased"] == ["Lyon", "Paris", "Lyon"]
    with pytest.raises(CommandError, match="--run: no run 'x' in 'dense-qa'; runs there: 'bm25'"):
        call_command("dense", "--collection", "dense-qa", "--run", "x")


def test_original_answer_labels_are_compared_with_lexical_match(researcher, stored):
    from evaluation.dense.labels import record_label

    results = list(DenseResult.objects.filter(topic__collection=stored.collection).order_by("pk"))
    machine = [r.correct for r in results]
    assert None not in machine  # both topics have gold answers
    # The researcher agrees with lexical match on the first answer only.
    record_label(researcher, results[0], "answer_correct", 0, 0, machine[0])
    record_label(researcher, results[1], "answer_correct", 0, 0, not machine[1])
    report = build_report(stored.collection)
    assert {t.key: t for t in report.tasks}["dense_correctness"].n_items == 2
    records = [r.as_dict() for r in report.human_vs_llm if r.task == "dense_correctness"]
    agreement = next(r for r in records if r["statistic"] == "percent_agreement")
    assert agreement["value"] == pytest.approx(0.5) and agreement["n"] == 2
    assert all("lexical match with gold" in r["judges"] for r in records)


def test_a_malformed_result_id_is_a_400_naming_it(researcher_client, stored):
    url = reverse("dense-topic", args=[stored.collection.pk, stored.capital.pk])
    for bad in ["abc", "-inf", "²", "0", "-1", str(10**30), "9" * 5000, "1\x00"]:
        response = researcher_client.get(url, {"result": bad})
        assert response.status_code == 400, bad
        assert response.text.startswith("* result\n"), bad
    assert researcher_client.get(url, {"result": 2**63 - 1}).status_code == 404
    result = DenseResult.objects.get(topic=stored.capital)
    assert researcher_client.get(url, {"result": result.pk}).status_code == 200


def test_an_unknown_or_malformed_run_filter_is_a_400_naming_it(researcher_client, stored):
    url = reverse("dense-collection", args=[stored.collection.pk])
    for bad in ["nope", "bm25\x00", "x" * 5000]:
        response = researcher_client.get(url, {"run": bad})
        assert response.status_code == 400, bad
        assert response.text.startswith("* run\n"), bad
    assert researcher_client.get(url, {"run": "bm25"}).status_code == 200
    assert researcher_client.get(url, {"run": ""}).status_code == 200


def test_label_indexes_are_bounded(researcher_client, stored):
    result = DenseResult.objects.get(topic=stored.capital)
    url = reverse("dense-topic-label", args=[stored.collection.pk, stored.capital.pk])
    post = {"result": result.pk, "kind": "rephrase_faithful", "i": 10**30, "j": 0, "answer": "no"}
    response = researcher_client.post(url, post)
    assert response.status_code == 200 and "less than or equal to" in response.text
    assert not DenseLabel.objects.exists()
