"""The SePer topic page says when every Delta-SePer is <= 0, the gold passages' included, and
says nothing when a context (here the gold passage) helps."""

import re

import pytest
from django.urls import reverse

from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    return data


def page(client, data) -> str:
    response = client.get(reverse("seper-topic", args=[data.collection.pk, data.topic.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_helping_gold_passage_gets_no_warning(researcher_client, scored):
    gold = SeperScore.objects.get(topic=scored.topic, context_kind="oracle")
    assert gold.delta_h > 0
    assert "judge-warning" not in page(researcher_client, scored)


def test_every_delta_at_or_below_zero_is_stated_with_the_figures(researcher_client, scored):
    rows = SeperScore.objects.filter(topic=scored.topic, delta_h__isnull=False)
    rows.update(delta_s=-0.25, delta_h=0.0)
    SeperScore.objects.filter(topic=scored.topic, context_kind="oracle").update(delta_s=-0.5)
    html = page(researcher_client, scored)
    items = re.findall(r'<li class="judge-warning"[^>]*>(.*?)</li>', html, re.S)
    texts = [re.sub(r"<[^>]+>", "", item) for item in items]
    assert len(texts) == 2  # soft and hard
    n = rows.count()
    assert f"every ΔSePer_S on this topic is &lt;= 0 ({n} contexts, the highest -0.250)" in texts[0]
    assert "the gold passages&#x27; included (-0.500)" in texts[0]
    assert "SePer with generator" in texts[0] and "and NLI" in texts[0]
    assert f"every ΔSePer_H on this topic is &lt;= 0 ({n} contexts, the highest 0.000)" in texts[1]
    assert 'href="#seper-scores"' in html and 'id="seper-scores"' in html  # numbers still shown


def collection_page(client, data) -> str:
    response = client.get(reverse("seper-collection", args=[data.collection.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_collection_page_warns_when_no_context_helps_anywhere(researcher_client, scored):
    assert "judge-warning" not in collection_page(researcher_client, scored)
    SeperScore.objects.filter(delta_h__isnull=False).update(delta_s=-0.1, delta_h=-0.2)
    html = collection_page(researcher_client, scored)
    assert "every ΔSePer_S in this collection is &lt;= 0" in html
    assert "every ΔSePer_H in this collection is &lt;= 0" in html
    assert 'href="#seper-collection"' in html and 'id="seper-collection"' in html
