"""The agreement page at scale: its report cached under the collection's data version, its
disagreements filtered and paged, its cell links opening a page of their own."""

import re

import pytest
from django.urls import reverse

from crux_app.models import Judge, Judgment
from evaluation.agreement import report_cache
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_run,
    make_topic,
)

pytestmark = pytest.mark.django_db

N_PASSAGES = 10


@pytest.fixture
def collection():
    """Topics t1 and t2, 3 sub-questions x 10 passages each, one LLM judge and one human
    who disagree on every item but one in six (|difference| 1 to 5)."""
    collection = make_collection("scale")
    llm, human = make_judge("llm"), make_judge("h1", kind=Judge.Kind.HUMAN)
    rows = []
    for name in ("t1", "t2"):
        topic = make_topic(collection, name, n_subquestions=3)
        passages = make_passages(collection, name, N_PASSAGES)
        for sq in topic.subquestions.all():
            for i, p in enumerate(passages):
                human_rating = (i + sq.position) % 6
                for judge, rating in ((human, human_rating), (llm, (human_rating + i) % 6)):
                    rows.append(
                        Judgment(
                            judge=judge,
                            topic=topic,
                            subquestion=sq,
                            passage=p,
                            task="passage_rating",
                            rating=rating,
                        )
                    )
    Judgment.objects.bulk_create(rows)
    return collection


def url(collection) -> str:
    return reverse("agreement", args=[collection.pk])


def n_disagreements(collection) -> int:
    """Items the two judges rate differently, counted from the rows themselves."""
    labels: dict[tuple[int, int], dict[str, int]] = {}
    for sq, passage, name, rating in Judgment.objects.filter(
        topic__collection=collection
    ).values_list("subquestion_id", "passage_id", "judge__name", "rating"):
        labels.setdefault((sq, passage), {})[name] = rating
    return sum(1 for pair in labels.values() if pair["llm"] != pair["h1"])


@pytest.fixture
def builds(monkeypatch):
    """The reports the page computed (the real service, counted)."""
    calls = []
    real = report_cache.build_report

    def counted(collection, options):
        calls.append(options)
        return real(collection, options)

    monkeypatch.setattr(report_cache, "build_report", counted)
    return calls


def test_the_report_is_computed_once_per_data_version_and_again_after_a_write(
    researcher_client, collection, builds
):
    first = researcher_client.get(url(collection), {"resamples": 10})
    again = researcher_client.get(url(collection), {"resamples": 10, "d-page": 2})
    assert first.status_code == again.status_code == 200
    assert len(builds) == 1  # the second request, another page of disagreements, read the cache
    assert first.context["report"].human_vs_llm == again.context["report"].human_vs_llm
    researcher_client.get(url(collection), {"resamples": 10, "tau": 2})
    assert len(builds) == 2  # other options: another report

    # A real write path: the researcher rates a cell of the coverage matrix.
    topic = collection.topics.get(external_id="t1")
    sq, passage = topic.subquestions.first(), collection.passages.first()
    cell = reverse("crux-topic-cell", args=[collection.pk, topic.pk])
    posted = researcher_client.post(
        f"{cell}?sq={sq.pk}&passage={passage.pk}",
        {"subquestion": sq.pk, "passage": passage.pk, "rating": 5},
        HTTP_HX_REQUEST="true",
    )
    assert posted.status_code == 200
    after = researcher_client.get(url(collection), {"resamples": 10})
    assert len(builds) == 3
    assert "rita" in [r.name for r in after.context["report"].raters]


def test_a_new_gold_answer_is_a_new_report(researcher_client, collection, builds):
    from annotation.campaigns.setup import SelectionOptions, create_campaign
    from annotation.models import Campaign

    researcher_client.get(url(collection), {"resamples": 0})
    topic = collection.topics.get(external_id="t1")
    make_run(
        collection, "bm25", topic, list(collection.passages.filter(external_id__startswith="t1"))
    )
    researcher_client.get(url(collection), {"resamples": 0})
    assert len(builds) == 2  # a new run: a new data version
    campaign = create_campaign(
        Campaign(name="c", collection=collection, task_type="passage_rating"),
        SelectionOptions(mode="sample", sample_size=2, seed=0),
        [],
    )
    researcher_client.get(url(collection), {"resamples": 0})
    assert len(builds) == 3  # a campaign's items and gold answers change its figures
    item = campaign.items.first()
    item.is_gold, item.gold_answer = True, {"rating": 3}
    item.save()
    researcher_client.get(url(collection), {"resamples": 0})
    assert len(builds) == 4


def test_disagreements_are_paged(researcher_client, collection):
    total = n_disagreements(collection)
    assert total > 25
    response = researcher_client.get(url(collection), {"resamples": 0})
    rows = response.context["disagreement_rows"]
    assert len(rows) == 25
    html = response.content.decode()
    assert f"1–25 of {total} disagreements" in html
    table = re.search(r'<table class="compact" id="disagreement-table">.*?</table>', html, re.S)
    assert table.group(0).count('<tr data-task="passage_rating"') == 25
    assert "resamples=0&amp;d-page=2#agreement-disagreements" in html
    last_page = -(-total // 25)
    last = researcher_client.get(url(collection), {"resamples": 0, "d-page": last_page})
    assert len(last.context["disagreement_rows"]) == total - 25 * (last_page - 1)
    bigger = researcher_client.get(url(collection), {"resamples": 0, "d-size": 100})
    assert len(bigger.context["disagreement_rows"]) == total
    # Worst first across the pages.
    gaps = [d.difference for d, _ in rows] + [
        d.difference for d, _ in last.context["disagreement_rows"]
    ]
    assert gaps == sorted(gaps, reverse=True)
    # The table of contents counts them all.
    toc = (
        f'<a href="#agreement-disagreements">Disagreements</a> <span class="muted small">({total})'
    )
    assert toc in html


def test_disagreements_are_filtered_by_topic_judge_and_gap(researcher_client, collection):
    base = {"resamples": 0, "d-size": 200}
    by_topic = researcher_client.get(url(collection), base | {"d-topic": "t2"})
    assert {d.topic for d, _ in by_topic.context["disagreement_rows"]} == {"t2"}
    assert len(by_topic.context["disagreement_rows"]) == n_disagreements(collection) // 2
    wide = researcher_client.get(url(collection), base | {"d-gap": "4"})
    assert wide.context["disagreement_rows"]
    assert all(d.difference >= 4 for d, _ in wide.context["disagreement_rows"])
    across = researcher_client.get(url(collection), base | {"d-across": "on"})
    assert all(d.crosses_tau for d, _ in across.context["disagreement_rows"])
    judged = researcher_client.get(url(collection), base | {"d-judge": "llm"})
    assert len(judged.context["disagreement_rows"]) == n_disagreements(collection)
    # The filter's fields keep the report's own selectors.
    html = researcher_client.get(url(collection), {"resamples": 0, "tau": 2}).text
    form = re.search(r'<form method="get" action="#agreement-disagreements".*?</form>', html, re.S)
    assert '<input type="hidden" name="tau" value="2">' in form.group(0)


@pytest.mark.parametrize(
    "query",
    [{"d-page": "abc"}, {"d-page": "0"}, {"d-size": "3"}],
)
def test_bad_paging_of_the_disagreements_is_a_400(researcher_client, collection, query):
    response = researcher_client.get(url(collection), {"resamples": 0} | query)
    assert response.status_code == 400 and next(iter(query)) in response.text


@pytest.mark.parametrize(
    "query, message",
    [
        ({"d-gap": "9"}, "less than or equal to 5"),
        ({"d-gap": "x"}, "Enter a number"),
        ({"d-topic": "nope"}, "No topic with this id"),
        ({"d-judge": "nobody"}, "Select a valid choice"),
    ],
)
def test_a_refused_filter_is_shown_with_a_400(researcher_client, collection, query, message):
    response = researcher_client.get(url(collection), {"resamples": 0} | query)
    assert response.status_code == 400
    assert 'id="disagreement-filter-errors"' in response.text and message in response.text
    assert response.context["disagreement_rows"] == []


def test_a_cell_link_opens_a_page_in_the_site_layout(researcher_client, collection):
    response = researcher_client.get(url(collection), {"resamples": 0})
    links = [link["cell"] for _, link in response.context["disagreement_rows"]]
    assert links and all(links)
    page = researcher_client.get(links[0])
    assert page.status_code == 200
    html = page.content.decode()
    assert html.startswith("<!doctype html>") and '<header class="topbar">' in html
    assert "css/app.css" in html and 'id="cell-panel"' in html and 'id="cell-question"' in html
    d = response.context["disagreement_rows"][0][0]
    assert f'id="cell-passage-id">{d.item}<' in html
    assert 'id="cell-matrix-link"' in html
    # The matrix page still gets the bare panel to swap in.
    fragment = researcher_client.get(links[0], HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment and 'id="cell-question"' in fragment
