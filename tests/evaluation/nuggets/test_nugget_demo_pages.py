"""The nugget demo collection's pages say what it holds (issue #34): its collection page counts
and lists the nugget judges (their labels are no ``Judgment`` rows), and the post-editor shows
each topic's passages that the nugget-passage ratings judged; the nugget pages warn about a
nearly constant judge."""

from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from crux_app.models import Collection, Topic
from evaluation.nuggets.demo import COLLECTION, load
from evaluation.nuggets.models import NuggetAssignment
from evaluation.nuggets.post_edit_task import post_edit_specs

pytestmark = pytest.mark.django_db


@pytest.fixture
def nugget_demo() -> Collection:
    load(Path(settings.BASE_DIR) / "fixtures", lambda line: None)
    return Collection.objects.get(name=COLLECTION)


def test_the_collection_page_counts_and_lists_the_nugget_judges(researcher_client, nugget_demo):
    html = researcher_client.get(reverse("collection-detail", args=[nugget_demo.pk])).content
    html = html.decode()
    assert "<li><b>2</b> judges</li>" in html
    assert "No judgments yet" not in html
    assert "demo-nugget-llm" in html and "demo-nugget-rater" in html
    assert "nugget assignments</div>" in html and "nugget-passage ratings</div>" in html
    listing = researcher_client.get(reverse("collection-list")).content.decode()
    assert '<td class="num">2</td>' in listing


def test_the_post_editor_shows_the_passages_rated_for_the_nuggets(nugget_demo):
    topic = Topic.objects.get(collection=nugget_demo, external_id="n1")
    (spec,) = post_edit_specs([topic.pk])
    # Passages hb1-hb5 have nugget-passage ratings of topic n1 (hb1 rated 5 first).
    shown = [p["docid"] for p in spec.payload["passages"]]
    assert shown and shown[0] == "hb1" and set(shown) <= {f"hb{i}" for i in range(1, 6)}
    assert all(p["text"] for p in spec.payload["passages"])


def test_the_nugget_pages_warn_about_a_nearly_constant_assignment_judge(
    researcher_client, nugget_demo
):
    url = reverse("nuggets-collection", args=[nugget_demo.pk])
    assert 'class="judge-warning"' not in researcher_client.get(url).content.decode()
    NuggetAssignment.objects.filter(output__collection=nugget_demo).update(assignment="support")
    n = NuggetAssignment.objects.filter(output__collection=nugget_demo).count()
    html = researcher_client.get(url).content.decode()
    assert 'data-kind="constant_ratings" data-judge="demo-nugget-llm"' in html
    assert f"demo-nugget-llm gave 2 to {n} of {n} items in demo-nuggets (nugget assignments" in html
    topic = Topic.objects.get(collection=nugget_demo, external_id="n1")
    page = researcher_client.get(reverse("nuggets-topic", args=[nugget_demo.pk, topic.pk]))
    assert 'data-judge="demo-nugget-llm"' in page.content.decode()
