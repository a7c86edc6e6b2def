"""The agreement page reads in one pass: a table of contents, tasks without data on one line,
the campaign as a dropdown, export names that carry campaign and tau, and confusion-matrix
titles that wrap inside their figure (page and HTML report)."""

import re

import pytest
from django.urls import reverse

from annotation.models import Campaign
from crux_app.models import Judge, Judgment
from evaluation.agreement.machine_agreement import ConfusionMatrix
from evaluation.agreement.presentation import CONFUSION_TITLE_CHARS, confusion_figure
from evaluation.agreement.views import export_name
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic

pytestmark = pytest.mark.django_db

LONG_JUDGE = "meta-llama/Llama-3.1-70B-Instruct served by vllm with prompt crux-rubric-v3 <b>"


@pytest.fixture
def collection():
    """passage_rating labelled by an LLM judge with a long name and one human; no other task
    has data."""
    collection = make_collection("layout page")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    llm, human = make_judge(LONG_JUDGE), make_judge("h1", kind=Judge.Kind.HUMAN)
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


def page(client, collection, **params):
    return client.get(reverse("agreement", args=[collection.pk]), {"resamples": 0, **params})


def test_table_of_contents_links_every_section_on_page_and_report(researcher_client, collection):
    for response in (
        page(researcher_client, collection),
        page(researcher_client, collection, format="html"),
    ):
        html = response.content.decode()
        toc = html[
            html.index('id="agreement-toc"') : html.index(
                "</nav>", html.index('id="agreement-toc"')
            )
        ]
        targets = re.findall(r'href="#([a-z-]+)"', toc)
        assert targets[:3] == ["agreement-what", "agreement-headline", "human-vs-llm"]
        assert {"agreement-confusion", "inter-annotator", "agreement-disagreements"} <= set(targets)
        for target in targets:
            assert f'id="{target}"' in html, target
        assert "(empty)" in toc or "figures defined" in toc


def test_tasks_without_data_are_one_line(researcher_client, collection):
    response = page(researcher_client, collection)
    html = response.content.decode()
    empty = [t["key"] for t in response.context["meta"]["tasks"] if not t["n_items"]]
    assert "passage_rating" not in empty and "report_coverage" in empty
    tasks = html[
        html.index('id="agreement-tasks"') : html.index(
            "</table>", html.index('id="agreement-tasks"')
        )
    ]
    assert tasks.count("<tr data-task=") == 1  # passage_rating only
    (line,) = re.findall(
        r'<tr class="collapsed" id="tasks-without-data" data-tasks="([^"]+)"', tasks
    )
    assert line.split() == empty
    # The figures of tasks without data are folded too, and the context keeps every row.
    inter = html[
        html.index('<section id="inter-annotator">') : html.index('<section id="per-annotator">')
    ]
    for task in empty:
        assert f'data-section="inter_annotator" data-task="{task}"' not in inter
    assert re.search(r'<tr class="collapsed" data-tasks="[^"]*report_coverage', inter)
    every = {r.task for r in response.context["inter_annotator"]}
    assert set(empty) <= every


def test_a_task_whose_figures_are_all_undefined_for_one_reason_is_one_line(
    researcher_client, collection
):
    html = page(researcher_client, collection).content.decode()
    inter = html[
        html.index('<section id="inter-annotator">') : html.index('<section id="per-annotator">')
    ]
    line = re.search(r'<tr class="collapsed" data-tasks="passage_rating">(.*?)</tr>', inter, re.S)
    assert line and "fewer than 2 human annotators labelled this task (1)" in line.group(1)
    assert 'data-statistic="fleiss_kappa"' not in inter


def test_campaign_filter_is_a_dropdown_of_the_collections_campaigns(researcher_client, collection):
    Campaign.objects.create(
        name="Wave 1", slug="wave-1", collection=collection, task_type="passage_rating"
    )
    other = make_collection("elsewhere")
    Campaign.objects.create(
        name="Other", slug="other", collection=other, task_type="passage_rating"
    )
    html = page(researcher_client, collection, campaign="wave-1").content.decode()
    select = re.search(r'<select name="campaign"[^>]*>(.*?)</select>', html, re.S)
    assert select, "no campaign dropdown"
    options = re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)</option>', select.group(1))
    assert [(v, name) for v, _, name in options] == [
        ("", "every judgment (no campaign)"),
        ("wave-1", "Wave 1"),
    ]
    assert [v for v, chosen, _ in options if chosen] == ["wave-1"]
    assert page(researcher_client, collection, campaign="other").status_code == 400


def test_export_names_carry_campaign_and_tau(researcher_client, collection):
    Campaign.objects.create(
        name="Wave 1", slug="wave-1", collection=collection, task_type="passage_rating"
    )
    response = page(researcher_client, collection, campaign="Wave 1", tau=2.5, format="csv")
    assert response["Content-Disposition"] == (
        'attachment; filename="agreement-layout-page-campaign-wave-1-tau2.5.csv"'
    )
    html = page(researcher_client, collection, tau=4).content.decode()
    assert "tau=4" in re.search(r'id="export-json" href="([^"]+)"', html).group(1)
    assert export_name('A "b"/c', None, 3.0, "json") == "agreement-A-b-c-tau3.json"
    assert export_name("ünï", "w", 0.5, "html") == "agreement-n-campaign-w-tau0.5.html"
    assert export_name("日本", None, 5, "csv") == "agreement-x-tau5.csv"


def test_confusion_titles_wrap_inside_the_figure():
    cm = ConfusionMatrix(
        task="passage_rating",
        judge=LONG_JUDGE,
        reference="all annotators (pooled)",
        scale="0-5",
        labels=["0", "1"],
        matrix=[[1, 0], [0, 1]],
    )
    layout = confusion_figure(cm)["layout"]
    lines = layout["title"]["text"].split("<br>")
    assert len(lines) > 1 and all(len(line) <= CONFUSION_TITLE_CHARS + 8 for line in lines)
    assert "&lt;b&gt;" in lines[-1] or any("&lt;b&gt;" in line for line in lines)  # escaped
    joined = " ".join(lines).replace("&lt;", "<").replace("&gt;", ">")
    assert joined == f"passage_rating: {LONG_JUDGE} vs all annotators (pooled)"
    assert layout["margin"]["t"] >= 20 + 18 * len(lines)
    assert layout["title"]["xanchor"] == "center" and layout["title"]["x"] == 0.5


def test_page_and_report_ship_the_wrapped_titles(researcher_client, collection):
    report = page(researcher_client, collection, format="html").content.decode()
    shown = page(researcher_client, collection).content.decode()
    # The page asks for its plot when it is scrolled to; the report holds it.
    slot = re.search(r'<div class="plot-slot" hx-get="([^"]+)"', shown).group(1)
    plot = researcher_client.get(slot.replace("&amp;", "&")).content.decode()
    for fmt, html in (("page", plot), ("html", report)):
        spec = re.search(
            r'<script id="confusion-0-data" type="application/json">(.*?)</script>', html, re.S
        )
        assert spec and "\\u003Cbr\\u003E" in spec.group(1), fmt
