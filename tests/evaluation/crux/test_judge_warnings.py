"""Degenerate-judge warnings of CRUX: on the coverage matrix page (its shown judge on the topic)
and in `manage.py evaluate` (the judge on the collection, runs tied on a metric)."""

import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.crux.judge_warnings import evaluation_warnings, judge_warnings
from tests.evaluation.crux.degenerate_collection import BROKEN, FLAT, SPREAD

pytestmark = pytest.mark.django_db


def matrix_html(client, flat, **params) -> str:
    url = reverse("crux-topic", args=[flat.collection.pk, flat.topic.pk])
    response = client.get(url, params)
    assert response.status_code == 200
    return response.content.decode()


def warnings_of(html: str) -> list[str]:
    """The text of each warning item of the page."""
    items = re.findall(r'<li class="judge-warning"[^>]*>(.*?)</li>', html, re.S)
    return [re.sub(r"<[^>]+>", "", item).strip() for item in items]


def test_the_matrix_says_when_its_judge_gives_one_rating(researcher_client, flat):
    # (The default judge is the annotator, who rated every item: the LLM is asked for.)
    html = matrix_html(researcher_client, flat, judge=flat.judges[FLAT].pk)
    (warning,) = warnings_of(html)
    assert "flat-llm gave 4 to 29 of 30 items of topic t1 (97%)" in warning
    assert "normalised entropy 0.08 of its ratings (4: 29, 5: 1)" in warning
    assert 'data-judge="flat-llm"' in html and 'href="#matrix-plot"' in html
    # The numbers stay: the matrix is drawn from the same ratings below the warning.
    assert html.index("judge-warnings") < html.index('id="matrix-plot"')
    assert 'id="matrix-data"' in html


def test_an_informative_judge_gets_no_warning(researcher_client, flat):
    html = matrix_html(researcher_client, flat, judge=flat.judges[SPREAD].pk)
    assert "judge-warning" not in html
    assert 'id="matrix-plot"' in html


def test_the_matrix_says_when_outputs_are_unparsable(researcher_client, flat):
    html = matrix_html(researcher_client, flat, judge=flat.judges[BROKEN].pk)
    (warning,) = warnings_of(html)
    assert "4 of 6 outputs of broken-llm of topic t1 (67%) could not be parsed" in warning
    assert 'data-kind="unparsable_outputs"' in html


def test_the_htmx_partial_carries_the_warning(researcher_client, flat):
    url = reverse("crux-topic", args=[flat.collection.pk, flat.topic.pk])
    params = {"judge": flat.judges[FLAT].pk}
    html = researcher_client.get(url, params, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in html and "flat-llm gave 4 to 29 of 30 items" in html


def test_collection_warnings_link_to_the_judges_matrix(flat):
    judge = evaluate(flat.collection, EvaluationParams(k=2, judge=FLAT)).judge
    (warning,) = judge_warnings(flat.collection, judge, link="/m?judge=1")
    assert warning.judge == FLAT and warning.link == "/m?judge=1"
    assert "gave 4 to 29 of 30 items in flat (97%)" in warning.message


def test_evaluation_warnings_name_the_tied_metrics(flat):
    warnings = evaluation_warnings(evaluate(flat.collection, EvaluationParams(k=2, judge=FLAT)))
    tied = {w.figures["metric"] for w in warnings if w.kind == "tied_runs"}
    assert "coverage" in tied and "ndcg" not in tied  # r2's top-2 holds no required passage
    spread = evaluation_warnings(evaluate(flat.collection, EvaluationParams(k=2, judge=SPREAD)))
    assert not [w for w in spread if w.kind == "constant_ratings"]
    assert "coverage" not in {w.figures.get("metric") for w in spread}


def run_evaluate(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate", "--collection", "flat", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_evaluate_prints_the_warnings_on_stderr_and_keeps_its_records(flat):
    out, err = run_evaluate("--k", "2", "--judge", FLAT)
    records = {r["run"]: r for r in json.loads(out)}
    assert records["r1"]["coverage"] == records["r2"]["coverage"] == 1.0
    lines = err.splitlines()
    assert "warning (nearly constant): flat-llm gave 4 to 29 of 30 items in flat (97%)" in lines[0]
    assert any(
        line.startswith("warning (runs tied): Every run scores 1.0000 on coverage under flat-llm")
        for line in lines
    )


def test_evaluate_with_an_informative_judge_warns_of_nothing_about_it(flat):
    out, err = run_evaluate("--k", "2", "--judge", SPREAD)
    records = {r["run"]: r for r in json.loads(out)}
    assert records["r1"]["coverage"] == 0.5 and records["r2"]["coverage"] == 0.0
    assert "nearly constant" not in err and "on coverage" not in err


def test_evaluate_reports_mode_still_warns_about_the_judge(flat):
    _, err = run_evaluate("--reports", "--judge", BROKEN)
    assert "4 of 6 outputs of broken-llm in flat (67%)" in err
