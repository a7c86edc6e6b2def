"""The crowd aggregation page: linked from the agreement page, its form aggregates
(post/redirect/get) and lists the aggregated judges with their workers' skills; refusals are
shown at the field with a 400; researchers only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.task_types.names import PASSAGE_RATING
from crux_app.models import Judge

from .review_data import disagreement_collection

pytestmark = pytest.mark.django_db


def test_the_form_aggregates_and_redirects(researcher_client):
    data = disagreement_collection("rv")
    url = reverse("label-aggregation", args=[data.collection.pk])
    agreement = researcher_client.get(reverse("agreement", args=[data.collection.pk]))
    assert url in agreement.content.decode()
    form = {"task": PASSAGE_RATING, "method": "wawa", "name": "page", "seed": "0",
            "judges": "user:ann\nuser:bob\ngpt\n", "campaign": ""}  # fmt: skip
    response = researcher_client.post(url, form)
    assert response.status_code == 302 and response["Location"] == url
    assert Judge.objects.get(name="aggregated:page").judgments.count() == 4
    page = researcher_client.get(url).content.decode()
    assert "aggregated:page" in page and "annotation (own)" in page
    assert "machine judges in the model: gpt" in page
    # The agreement page offers it as a judge like any other.
    agreement = researcher_client.get(reverse("agreement", args=[data.collection.pk]))
    assert 'value="aggregated:page"' in agreement.content.decode()


def test_refusals_are_shown_at_the_field(researcher_client):
    data = disagreement_collection("rv")
    url = reverse("label-aggregation", args=[data.collection.pk])
    form = {"task": PASSAGE_RATING, "method": "majority", "seed": "0", "judges": "carl"}
    response = researcher_client.post(url, form)
    assert response.status_code == 400
    assert "no labels of passage_rating by carl" in response.content.decode()
    bad_name = researcher_client.post(url, {**form, "judges": "", "name": "a b"})
    assert bad_name.status_code == 400 and "use letters" in bad_name.content.decode()
    assert not Judge.objects.filter(kind=Judge.Kind.AGGREGATED).exists()


def test_annotators_get_403(client, annotator):
    data = disagreement_collection("rv")
    client.force_login(annotator)
    url = reverse("label-aggregation", args=[data.collection.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"task": PASSAGE_RATING}).status_code == 403
