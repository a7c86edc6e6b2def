"""A researcher's SePer answer-equivalence label, written through its view, moves the
collection's data version, so the agreement page's cached report is computed afresh."""

import pytest
from django.urls import reverse

from crux_app import data_version
from evaluation.agreement import report_cache
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import AnswerEquivalenceLabel, SeperScore
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db


def test_a_label_posted_on_the_topic_page_refreshes_the_cached_agreement_page(
    researcher_client, monkeypatch
):
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    baseline = SeperScore.objects.get(topic=data.topic, context_kind=SeperScore.ContextKind.NONE)
    builds = []
    real = report_cache.build_report
    monkeypatch.setattr(report_cache, "build_report", lambda c, o: builds.append(o) or real(c, o))
    label = reverse("seper-topic-equivalence", args=[data.collection.pk, data.topic.pk])
    post = {"score": baseline.pk, "cluster": 0}
    assert researcher_client.post(label, {**post, "answer": "yes"}).status_code == 200
    page = reverse("agreement", args=[data.collection.pk])
    assert researcher_client.get(page, {"resamples": 10}).status_code == 200
    assert len(builds) == 1
    version = data_version.current(data.collection.pk)
    # The second answer changes only the label (the kernel's decision is stored already).
    assert researcher_client.post(label, {**post, "answer": "no"}).status_code == 200
    assert AnswerEquivalenceLabel.objects.get().equivalent is False
    assert data_version.current(data.collection.pk) != version
    assert researcher_client.get(page, {"resamples": 10}).status_code == 200
    assert len(builds) == 2  # the label's write changed the version: the report was rebuilt
