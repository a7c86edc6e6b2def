"""The agreement page stays small: its plots are slots that ask for their figure when scrolled to
(``AgreementPlotView``), each answering the figure the HTML report draws inline."""

import json
import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from crux_app.models import Judge, Judgment, Workspace
from evaluation.agreement.forms import page_form
from evaluation.agreement.presentation import figures
from evaluation.agreement.report_cache import agreement_report
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_output,
    make_passages,
    make_topic,
)

pytestmark = pytest.mark.django_db

N_TOPICS, N_SUBQUESTIONS, N_PASSAGES = 6, 5, 30
PAGE_LIMIT = 100_000  # bytes of HTML (issue #37)
SLOT = re.compile(r'<div class="plot-slot" hx-get="([^"]+)" hx-trigger="revealed"')
SPEC = re.compile(r'<script id="([^"]+)" type="application/json">(.*?)</script>', re.S)


@pytest.fixture
def collection():
    """The demo's shape, larger: two LLM judges and an annotator rating every (sub-question,
    passage) item of six topics (900 items each) and the coverage of two systems' reports, so
    the page has confusion and coverage plots. (The page grows with the judges, whose pairs
    are its tables' rows, not with the items.)"""
    collection = make_collection("lazy plots")
    judges = [make_judge("llm-a"), make_judge("llm-b", prompt_version="v2")]
    judges.append(make_judge("expert", kind=Judge.Kind.HUMAN))
    rows = []
    for t in range(N_TOPICS):
        topic = make_topic(collection, f"t{t}", n_subquestions=N_SUBQUESTIONS)
        passages = make_passages(collection, f"t{t}", N_PASSAGES)
        outputs = [make_output(topic, system, passages[:3]) for system in ("bm25", "dense")]
        for sq in topic.subquestions.all():
            for j, judge in enumerate(judges):
                rows += [
                    Judgment(
                        judge=judge,
                        topic=topic,
                        subquestion=sq,
                        passage=p,
                        task="passage_rating",
                        rating=(i + sq.position + j * (i % 3)) % 6,
                    )
                    for i, p in enumerate(passages)
                ]
                rows += [
                    Judgment(
                        judge=judge,
                        topic=topic,
                        subquestion=sq,
                        output=o,
                        task="report_coverage",
                        rating=(sq.position + k + j) % 2,
                    )
                    for k, o in enumerate(outputs)
                ]
    Judgment.objects.bulk_create(rows)
    return collection


def test_the_page_is_small_and_each_plot_loads_when_scrolled_to(researcher_client, collection):
    url = reverse("agreement", args=[collection.pk])
    response = researcher_client.get(url, {"resamples": 20, "tau": 2})
    assert response.status_code == 200
    assert len(response.content) < PAGE_LIMIT, len(response.content)
    html = response.content.decode()
    assert not SPEC.search(html)  # no figure's data on the page itself
    assert 'data-statistic="cohen_kappa_quadratic"' in html  # the tables stay

    report = agreement_report(collection, response.context["form"].options())
    expected = [f for group in figures(report).values() for f in group]
    slots = SLOT.findall(html)
    assert {"confusion", "coverage"} == {f["id"].split("-")[0] for f in expected}
    assert len(slots) == len(expected) > 2
    for slot, figure in zip(slots, expected, strict=True):
        plot = researcher_client.get(unescape(slot))
        assert plot.status_code == 200, slot
        fragment = plot.content.decode()
        assert "<html" not in fragment
        assert f'id="{figure["id"]}" data-plotly-figure="{figure["data_id"]}"' in fragment
        data_id, spec = SPEC.search(fragment).groups()
        assert data_id == figure["data_id"]
        # The page's options travel with the slot: the figure of the report shown (tau 2).
        assert json.loads(spec) == json.loads(json.dumps(figure["spec"]))


def test_the_html_report_draws_every_plot_inline(researcher_client, collection):
    url = reverse("agreement", args=[collection.pk])
    report = researcher_client.get(url, {"resamples": 0, "format": "html"}).content.decode()
    assert not SLOT.search(report)
    assert len(SPEC.findall(report)) >= 4  # every figure's spec, no request to the app


def test_a_plot_door_refuses_what_the_page_would(researcher_client, collection, client):
    plot = reverse("agreement-plot", args=[collection.pk, "confusion-0"])
    assert researcher_client.get(plot, {"resamples": 0}).status_code == 200
    assert researcher_client.get(plot.replace("confusion-0", "confusion-999")).status_code == 404
    bad = researcher_client.get(plot, {"tau": "nine"})
    assert bad.status_code == 400 and "tau" in bad.content.decode()
    # Another workspace's researcher: as if the collection did not exist.
    other = Workspace.objects.create(name="elsewhere")
    collection.workspace = other
    collection.save()
    assert researcher_client.get(plot, {"resamples": 0}).status_code == 404
    assert Client().get(plot).status_code == 302  # anonymous: the login


def test_page_form_fills_the_defaults(collection, rf):
    form = page_form(rf.get("/").GET, collection)
    assert form.is_valid() and form.cleaned_data["tau"] == 3
