"""The agreement page: access by role, selectors, exports equal to the command's output."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Campaign
from crux_app.models import Judge, Judgment
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection():
    collection = make_collection("page")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    llm, human = make_judge("llm"), make_judge("h1", kind=Judge.Kind.HUMAN)
    Judgment.objects.bulk_create(
        Judgment(
            judge=j,
            topic=topic,
            subquestion=sq,
            passage=p,
            task="passage_rating",
            rating=(i * 2 + sq.position + (j == llm)) % 6,
        )
        for j in (llm, human)
        for sq in topic.subquestions.all()
        for i, p in enumerate(passages)
    )
    return collection


def url(collection, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return reverse("agreement", args=[collection.pk]) + (f"?{query}" if query else "")


def test_annotators_get_403_and_anonymous_users_the_login(client, annotator, collection):
    assert client.get(url(collection)).status_code == 302
    client.force_login(annotator)
    assert client.get(url(collection)).status_code == 403
    assert client.get(url(collection, format="json")).status_code == 403


def test_page_renders_figures_plots_and_export_links(researcher_client, collection):
    response = researcher_client.get(url(collection, resamples=20))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="confusion-0"' in html and "js/plots.js" in html
    assert (
        'data-statistic="cohen_kappa_quadratic"' in html and "?resamples=20&amp;format=json" in html
    )
    assert "fewer than 2 human annotators" in html  # one annotator: inter-annotator undefined


def test_json_export_equals_the_command(researcher_client, collection):
    response = researcher_client.get(url(collection, format="json", tau=2))
    assert response["Content-Disposition"] == 'attachment; filename="agreement-page-tau2.json"'
    page = json.loads(response.content)
    out = io.StringIO()
    call_command("agreement", "--collection", "page", "--tau", "2", stdout=out)
    command = json.loads(out.getvalue())
    for data in (page, command):
        data["meta"].pop("generated_at")
    assert page == command


def test_html_export_is_a_download(researcher_client, collection):
    response = researcher_client.get(url(collection, format="html", resamples=0))
    assert response["Content-Type"].startswith("text/html")
    assert b"Agreement report" in response.content and b'src="/static' not in response.content


@pytest.mark.parametrize("params", [{"tau": "9"}, {"judge": "nobody"}, {"resamples": "-1"}])
def test_invalid_selectors_are_a_400_naming_the_field(researcher_client, collection, params):
    response = researcher_client.get(url(collection, **params))
    assert response.status_code == 400
    assert list(params)[0] in response.context["form"].errors


def test_campaign_page(researcher_client, collection):
    Campaign.objects.create(
        name="Wave 1", slug="wave-1", collection=collection, task_type="passage_rating"
    )
    response = researcher_client.get(url(collection, campaign="wave-1", resamples=0))
    assert response.status_code == 200
    assert (
        "campaign &#x27;Wave 1&#x27;: the labels of its 0 annotator(s)" in response.content.decode()
    )
    # The campaign's name works too (the command's --campaign takes either).
    by_name = researcher_client.get(
        reverse("agreement", args=[collection.pk]), {"campaign": "Wave 1"}
    )
    assert by_name.status_code == 200 and by_name.context["campaign"] == "wave-1"
    missing = researcher_client.get(url(collection, campaign="wave-9"))
    assert missing.status_code == 400
    (error,) = missing.context["form"].errors["campaign"]
    assert error == "campaign wave-9 does not exist in this collection; campaigns there: 'Wave 1'"


def test_unknown_collection_is_404(researcher_client):
    assert researcher_client.get(reverse("agreement", args=[999999])).status_code == 404


def test_bounded_parameters_name_the_field(researcher_client, collection):
    page = reverse("agreement", args=[collection.pk])
    for params, field in [
        ({"resamples": "²"}, "resamples"),
        ({"resamples": "2001"}, "resamples"),
        ({"tau": "nan"}, "tau"),
        ({"tau": "inf"}, "tau"),
        ({"max_disagreements": "-1"}, "max_disagreements"),
        ({"max_disagreements": str(10**30)}, "max_disagreements"),
        ({"campaign": "a\x00"}, "campaign"),
        ({"format": "xml"}, "format"),
    ]:
        response = researcher_client.get(page, params)
        assert response.status_code == 400, params
        assert f"{field}: " in response.text, params


def test_max_disagreements_limits_the_exported_rows(researcher_client, collection):
    page = reverse("agreement", args=[collection.pk])
    every = researcher_client.get(page, {"resamples": 0, "format": "json"})
    assert len(json.loads(every.content)["disagreements"]) > 1
    one = researcher_client.get(page, {"resamples": 0, "max_disagreements": 1, "format": "json"})
    assert len(json.loads(one.content)["disagreements"]) == 1
    # The page lists every disagreement a page at a time, whatever the exports' limit.
    shown = researcher_client.get(page, {"resamples": 0, "max_disagreements": 1})
    assert len(shown.context["disagreement_rows"]) > 1
