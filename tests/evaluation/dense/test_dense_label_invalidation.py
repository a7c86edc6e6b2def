"""A researcher's DENSE label, written through its view, moves the collection's data version,
so the agreement page's cached report is computed afresh and counts it."""

import pytest
from django.urls import reverse

from evaluation.agreement import report_cache
from evaluation.dense.models import DenseResult
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = pytest.mark.django_db


def _rephrase_agreement(response) -> list[dict]:
    """The page's percent agreement records of researchers vs the NLI judge on rephrases."""
    records = [r.as_dict() for r in response.context["report"].human_vs_llm]
    return [
        r
        for r in records
        if r["task"] == "dense_rephrase" and r["statistic"] == "percent_agreement" and r["n"]
    ]


def test_a_label_posted_on_the_topic_page_refreshes_the_cached_agreement_page(
    researcher_client, monkeypatch
):
    data = make_dense_data()
    run_job(data, RuleModels().models())
    builds = []
    real = report_cache.build_report
    monkeypatch.setattr(report_cache, "build_report", lambda c, o: builds.append(o) or real(c, o))
    page = reverse("agreement", args=[data.collection.pk])
    before = researcher_client.get(page, {"resamples": 10})
    assert _rephrase_agreement(before) == [] and len(builds) == 1
    result = DenseResult.objects.get(topic=data.capital)
    label = reverse("dense-topic-label", args=[data.collection.pk, data.capital.pk])
    post = {"result": result.pk, "kind": "rephrase_faithful", "i": 2, "j": 0, "answer": "yes"}
    assert researcher_client.post(label, post).status_code == 200
    after = researcher_client.get(page, {"resamples": 10})
    assert len(builds) == 2  # the label's write changed the version: the report was rebuilt
    agreement = _rephrase_agreement(after)
    assert [(r["n"], r["value"]) for r in agreement] == [(1, 1.0)]
