"""Long lists a page at a time: the collections list, a collection's topics and judges, the
topic lookup that replaces the judging page's topic dropdown; bad paging parameters are 400."""

import re

import pytest
from django.urls import reverse

from crux_app.models import Collection, Judge, Judgment, SubQuestion, Topic
from tests.crux_app.factories import make_collection, make_passages, make_topic

pytestmark = pytest.mark.django_db

N_TOPICS = 120  # a page holds 50 by default: pages of 50, 50 and 20


def many_topics(name: str = "big", n: int = N_TOPICS) -> Collection:
    """A collection of ``n`` topics ``q000``... (one sub-question each), made in bulk."""
    collection = make_collection(name)
    topics = Topic.objects.bulk_create(
        Topic(collection=collection, external_id=f"q{i:03d}", request=f"About subject {i}.")
        for i in range(n)
    )
    SubQuestion.objects.bulk_create(
        SubQuestion(topic=t, position=0, text=f"What of {t.external_id}?") for t in topics
    )
    return collection


def topic_rows(html: str) -> list[str]:
    """The topic ids of the rows of the collection page's topic table, in order."""
    table = re.search(r'<table class="data" id="topics">.*?</table>', html, re.S)
    if table is None:
        return []
    return re.findall(r'<td class="nowrap"><a href="[^"]+">([^<]+)</a></td>', table.group(0))


def detail(collection: Collection) -> str:
    return reverse("collection-detail", args=[collection.pk])


def test_the_collection_page_shows_its_topics_a_page_at_a_time(researcher_client):
    collection = many_topics()
    first = researcher_client.get(detail(collection)).content.decode()
    assert topic_rows(first) == [f"q{i:03d}" for i in range(50)]
    assert "1–50 of 120 topics" in first and "page 1 of 3" in first
    assert 'href="?page=2#topic-list" rel="next"' in first
    last = researcher_client.get(detail(collection), {"page": 3}).content.decode()
    assert topic_rows(last) == [f"q{i:03d}" for i in range(100, 120)]
    # Past the last page: the last page; a larger page size: fewer pages.
    assert topic_rows(researcher_client.get(detail(collection), {"page": 99}).text) == topic_rows(
        last
    )
    big = researcher_client.get(detail(collection), {"size": 200}).content.decode()
    assert len(topic_rows(big)) == N_TOPICS and "page 1 of" not in big


def test_the_collection_page_searches_topic_ids_and_requests(researcher_client):
    collection = many_topics()
    by_id = researcher_client.get(detail(collection), {"q": "q11"}).content.decode()
    assert topic_rows(by_id) == [f"q11{i}" for i in range(10)]
    assert "1–10 of 10 topics matching “q11”" in by_id
    by_request = researcher_client.get(detail(collection), {"q": "SUBJECT 7."}).content.decode()
    assert topic_rows(by_request) == ["q007"]
    # Paging links keep the search.
    paged = researcher_client.get(detail(collection), {"q": "subject", "size": 25}).text
    assert 'href="?q=subject&amp;size=25&amp;page=2#topic-list"' in paged
    none = researcher_client.get(detail(collection), {"q": "nothing-like-this"}).text
    assert topic_rows(none) == [] and "No topics match" in none


def test_the_page_counts_only_the_shown_topics(researcher_client, django_assert_max_num_queries):
    collection = many_topics()
    researcher_client.get(detail(collection))  # the collection's counts, cached
    with django_assert_max_num_queries(10):
        response = researcher_client.get(detail(collection), {"page": 2})
    assert len(response.context["page"].topics) == 50
    assert response.context["page"].collection.n_topics == N_TOPICS


@pytest.mark.parametrize(
    "query",
    [
        {"page": "abc"},
        {"page": "0"},
        {"page": "-1"},
        {"page": str(10**12)},
        {"size": "7"},
        {"size": "1000000"},
        {"q": "a\x00b"},
        {"q": "x" * 201},
        {"judges-page": "abc"},
    ],
)
def test_bad_paging_parameters_are_a_400_naming_them(researcher_client, query):
    collection = many_topics("small", 3)
    response = researcher_client.get(detail(collection), query)
    assert response.status_code == 400
    assert next(iter(query)) in response.content.decode()
    listing = researcher_client.get(reverse("collection-list"), query)
    assert listing.status_code == (200 if "judges-page" in query else 400)


def test_the_collections_list_is_paged_and_searchable(researcher_client):
    Collection.objects.bulk_create(Collection(name=f"coll-{i:02d}") for i in range(60))
    first = researcher_client.get(reverse("collection-list"))
    assert [c.name for c in first.context["collections"]] == [f"coll-{i:02d}" for i in range(50)]
    assert "1–50 of 60 collections" in first.text
    second = researcher_client.get(reverse("collection-list"), {"page": 2})
    assert [c.name for c in second.context["collections"]][0] == "coll-50"
    assert len(second.context["collections"]) == 10
    found = researcher_client.get(reverse("collection-list"), {"q": "coll-4"})
    assert [c.name for c in found.context["collections"]] == [f"coll-4{i}" for i in range(10)]


def test_the_collection_page_pages_and_searches_its_judges(researcher_client):
    collection = make_collection("judged")
    topic = make_topic(collection, "t1", n_subquestions=1)
    passage = make_passages(collection, "t1", 1)[0]
    judges = Judge.objects.bulk_create(
        Judge(name=f"judge-{i:02d}", kind=Judge.Kind.LLM, model_id=f"m{i}") for i in range(60)
    )
    sq = topic.subquestions.get()
    Judgment.objects.bulk_create(
        Judgment(judge=j, topic=topic, subquestion=sq, passage=passage, task="passage_rating")
        for j in judges
    )
    page = researcher_client.get(detail(collection)).context["page"]
    assert [j.name for j in page.judges] == [f"judge-{i:02d}" for i in range(50)]
    second = researcher_client.get(detail(collection), {"judges-page": 2})
    assert [j.name for j in second.context["page"].judges][0] == "judge-50"
    # The judge list's links keep the topic list's place, and the reverse.
    moved = researcher_client.get(detail(collection), {"page": 1, "judges-page": 2}).text
    assert 'href="?page=1#judge-list" rel="first"' in moved
    found = researcher_client.get(detail(collection), {"judges-q": "JUDGE-3"})
    assert [j.name for j in found.context["page"].judges] == [f"judge-3{i}" for i in range(10)]


def test_the_topic_lookup_offers_at_most_20_matches_of_this_collection(researcher_client):
    collection = many_topics()
    other = make_collection("other")
    make_topic(other, "q005-elsewhere")
    url = reverse("topic-search", args=[collection.pk])
    options = re.findall(r'<option value="([^"]+)">', researcher_client.get(url).text)
    assert options == [f"q{i:03d}" for i in range(20)]
    make_topic(collection, "a-q05", n_subquestions=0)
    make_topic(collection, "q05", n_subquestions=0)
    ranked = re.findall(
        r'<option value="([^"]+)">', researcher_client.get(url, {"topic": "Q05"}).text
    )
    # The exact id, then ids that start with it, then the others that contain it.
    assert ranked == ["q05", *(f"q05{i}" for i in range(10)), "a-q05"]
    by_request = researcher_client.get(url, {"topic": "subject 42."}).text
    assert re.findall(r'<option value="([^"]+)">', by_request) == ["q042"]
    assert researcher_client.get(url, {"topic": "q\x00"}).status_code == 400
    assert researcher_client.get(url, {"topic": "q" * 201}).status_code == 400


def test_the_topic_lookup_is_for_researchers_only(client, annotator):
    collection = many_topics("small", 2)
    client.force_login(annotator)
    assert client.get(reverse("topic-search", args=[collection.pk])).status_code == 403


def test_the_judging_page_has_a_topic_search_field_not_a_dropdown(researcher_client):
    collection = many_topics()
    url = reverse("crux-start", args=[collection.pk])
    html = researcher_client.get(url).content.decode()
    assert html.count("<option") < 40  # the scope, method, rubric and run choices only
    assert not re.search(r"<option[^>]*>q0", html)
    field = re.search(r'<input type="text" name="topic"[^>]*>', html).group(0)
    assert f'hx-get="{reverse("topic-search", args=[collection.pk])}"' in field
    assert 'list="id_topic-matches"' in field and '<datalist id="id_topic-matches">' in html
    # A topic is named by its id; another id is refused on the field.
    count_url = reverse("crux-start-count", args=[collection.pk])
    counted = researcher_client.get(count_url, {"scope": "collection", "topic": "q007"})
    assert counted.status_code == 200 and "data-to-judge" in counted.text
    refused = researcher_client.get(count_url, {"scope": "collection", "topic": "q7"})
    assert refused.status_code == 400 and "topic: No topic with this id" in refused.text
