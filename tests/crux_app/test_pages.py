"""Collections list, collection page and topic page, rendered through the Django client."""

import time

import pytest
from django.urls import reverse

from crux_app.judge_labels import label_sources
from crux_app.models import Job

from .factories import (
    make_collection,
    make_judge,
    make_output,
    make_passages,
    make_qrels,
    make_run,
    make_small_collection,
    make_topic,
    rate_passages,
)

pytestmark = pytest.mark.django_db


def topic_url(topic) -> str:
    return reverse("topic-detail", args=[topic.collection_id, topic.pk])


def test_collection_list_shows_each_collection_with_counts_and_link(researcher_client):
    small = make_small_collection()
    make_collection("nuggets-qa", kind="qa")
    response = researcher_client.get(reverse("collection-list"))
    assert response.status_code == 200
    html = response.content.decode()
    assert reverse("collection-detail", args=[small.collection.pk]) in html
    assert "Short-answer QA" in html and "Long-form reports" in html
    rows = {c.name: c for c in response.context["collections"]}
    assert (rows["duc04"].n_topics, rows["duc04"].n_judgments) == (2, 9)
    assert rows["nuggets-qa"].n_topics == 0


def test_collection_list_says_when_empty(researcher_client):
    response = researcher_client.get(reverse("collection-list"))
    assert "No collections yet" in response.content.decode()


def test_collection_page_lists_topics_runs_judges_and_jobs(researcher_client):
    small = make_small_collection()
    Job.objects.create(kind="import_crux", collection=small.collection, total=4, done=2)
    response = researcher_client.get(reverse("collection-detail", args=[small.collection.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert topic_url(small.topic) in html and topic_url(small.other_topic) in html
    assert "Discuss the causes of the 1998 floods." in html
    assert "model/smollm" in html and "annotator1" in html
    assert 'id="collection-jobs"' in html and "import_crux #" in html
    page = response.context["page"]
    assert [
        (t.external_id, t.n_subquestions, t.n_passages, t.n_judgments) for t in page.topics
    ] == [
        ("duc04-testb-3", 3, 6, 9),
        ("duc04-testb-7", 2, 1, 0),
    ]


def test_collection_page_without_jobs_says_so(researcher_client):
    small = make_small_collection()
    response = researcher_client.get(reverse("collection-detail", args=[small.collection.pk]))
    assert "No jobs for this collection yet" in response.content.decode()


def test_topic_page_shows_request_subquestions_passages_outputs_and_judgments(researcher_client):
    small = make_small_collection()
    response = researcher_client.get(topic_url(small.topic))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Discuss the causes of the 1998 floods." in html
    assert '<details id="reference-report">' in html and "heavy monsoon rain" in html
    for position in (0, 1, 3):
        assert f"What is aspect {position} of duc04-testb-3?" in html
    assert '<li class="placeholder" value="2">(no question at this position)</li>' in html
    assert html.count("text not available") == 1  # passage 5 has no text
    assert "Passage 0 of duc04-testb-3." in html
    assert f'href="#p-{small.passages[1].pk}"' in html  # the output's context links its rows
    assert "A generated report." in html
    assert "3 unparsed" in html  # the LLM judge's null ratings are counted, not hidden
    assert '<th class="num" title="position in run bm25">bm25</th>' in html


def test_topic_page_without_anything_pooled_says_so(researcher_client):
    topic = make_topic(make_collection(), "lonely", n_subquestions=0)
    html = researcher_client.get(topic_url(topic)).content.decode()
    assert "No sub-questions." in html
    assert "No passages for this topic." in html
    assert "No judgments for this topic yet." in html
    assert "No generated outputs for this topic." in html
    assert "No reference report." in html


def test_unknown_collection_and_topic_give_404(researcher_client):
    small = make_small_collection()
    other = make_collection("other")
    assert researcher_client.get(reverse("collection-detail", args=[999999])).status_code == 404
    assert (
        researcher_client.get(
            reverse("topic-detail", args=[small.collection.pk, 999999])
        ).status_code
        == 404
    )
    # A real topic under the wrong collection is not found either.
    assert (
        researcher_client.get(reverse("topic-detail", args=[other.pk, small.topic.pk])).status_code
        == 404
    )


def build_large_topic():
    """15 sub-questions x 300 passages, three runs, three judges rating every pair."""
    collection = make_collection("large")
    topic = make_topic(collection, "big", n_subquestions=15, placeholders=[7])
    passages = make_passages(collection, "big", 300, without_text=range(0, 300, 10))
    for name, order in [("bm25", passages), ("dense", passages[::-1]), ("mixed", passages[::2])]:
        make_run(collection, name, topic, order)
    make_qrels(topic, {p: 3 for p in passages[:40]})
    for name in ("llama-70b", "qwen-7b", "mistral-7b"):
        rate_passages(make_judge(name), topic, passages)
    for system in ("bm25", "dense", "mixed", "oracle"):
        make_output(topic, system, passages[:20])
    return topic


def test_large_topic_page_uses_few_queries_and_renders_fast(
    researcher_client, django_assert_max_num_queries
):
    topic = build_large_topic()
    url = topic_url(topic)
    researcher_client.get(url)  # warm templates and the connection
    # The page's own 15, and a fixed few for each method's summary (none grows with the topic).
    with django_assert_max_num_queries(15 + 15):
        started = time.perf_counter()
        response = researcher_client.get(url)
        elapsed = time.perf_counter() - started
    assert response.status_code == 200
    page = response.context["page"]
    assert len(page.passages) == 300
    assert page.n_judgments == 3 * 14 * 300
    # About 0.1 s on a development machine; the bound leaves room for a busy CI box.
    assert elapsed < 1.0, f"topic page took {elapsed:.2f}s"


def test_collection_page_query_count_does_not_grow_with_topics(
    researcher_client, django_assert_max_num_queries
):
    collection = make_collection("many")
    for i in range(30):
        make_topic(collection, f"t{i}", n_subquestions=3)
    url = reverse("collection-detail", args=[collection.pk])
    # The first request counts the collection's rows, runs and judges (cached afterwards), the
    # judges' labels of each declared kind outside Judgment among them (crux_app.judge_labels).
    with django_assert_max_num_queries(11 + len(label_sources())):
        response = researcher_client.get(url)
    assert len(response.context["page"].topics) == 30
    with django_assert_max_num_queries(8):
        researcher_client.get(url)


@pytest.mark.django_db
def test_collection_and_topic_pages_link_the_jobs_that_touched_them(researcher_client):
    data = make_small_collection()
    collection, topic = data.collection, data.topic
    whole = Job.objects.create(kind="generate_answers", collection=collection, total=3, done=1)
    one = Job.objects.create(kind="generate_answers", collection=collection, topic=topic)
    other = Job.objects.create(kind="generate_answers")

    page = researcher_client.get(reverse("collection-detail", args=[collection.pk]))
    assert reverse("job-detail", args=[whole.pk]) in page.content.decode()
    assert reverse("job-detail", args=[other.pk]) not in page.content.decode()

    page = researcher_client.get(reverse("topic-detail", args=[collection.pk, topic.pk]))
    html = page.content.decode()
    assert reverse("job-detail", args=[whole.pk]) in html
    assert reverse("job-detail", args=[one.pk]) in html
    assert reverse("job-detail", args=[other.pk]) not in html


@pytest.mark.django_db
def test_collection_page_links_the_evaluation_pages(researcher_client):
    collection = make_small_collection().collection
    html = researcher_client.get(reverse("collection-detail", args=[collection.pk])).content
    # Every link comes from an app's declaration; the template names none.
    for name in (
        "leaderboard",
        "crux-disagreements",
        "agreement",
        "crux-start",
        "answers-start",
        "seper-start",
        "dense-collection",
        "reteval-collection",
        "scaar-collection",
    ):
        assert reverse(name, args=[collection.pk]).encode() in html
