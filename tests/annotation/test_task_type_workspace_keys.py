"""What the workspace, the chosen-items campaign and the platform export read from a task
type's entry instead of its name: the keys and hints an item carries (``WorkspaceKeys``,
``item_data``), the check of chosen keys, the platform writer."""

import io
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

import annotation
from annotation.campaigns.from_items import create_campaign_from_items
from annotation.exports.exports import CampaignExportError, write_platform_labels
from annotation.models import Campaign
from annotation.queue.selection import SelectionError
from annotation.task_types.names import ANSWER_EQUIVALENCE, PASSAGE_RATING, REPORT_COVERAGE
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.method_config import Declaration, PluginConfig
from crux_app.models import Collection, Topic

from .campaign_data import make_annotator, make_campaign
from .toy_task_type import TOY, TOY_KEY

pytestmark = pytest.mark.django_db


class _ToyConfig(PluginConfig):
    name = "annotation"
    label = "toy_task_type_keys_test"

    def declare(self) -> Declaration:
        return Declaration(annotation_task_types=(TOY,))


@pytest.fixture
def toy():
    _ToyConfig("annotation", annotation).ready()
    yield TOY
    TASK_TYPE_REGISTRY.unregister(TOY_KEY)


def item_html(task_type: str) -> str:
    anna = make_annotator("anna")
    campaign = make_campaign(task_type, annotators=[anna])
    client = Client()
    client.force_login(anna)
    return client.get(reverse("annotation-workspace", args=[campaign.slug])).content.decode()


def attribute(html: str, name: str) -> str | None:
    found = re.search(rf'<section class="ws-item"[^>]*?\s{name}="([^"]*)"', html, re.S)
    return None if found is None else found.group(1).replace("&quot;", '"')


def test_passage_rating_carries_its_keys_its_cue_and_the_span_hint():
    html = item_html(PASSAGE_RATING)
    assert attribute(html, "data-key-field") == "rating"
    assert json.loads(attribute(html, "data-key-values")) == {str(r): str(r) for r in range(6)}
    assert attribute(html, "data-missing") == "Choose a rating first: press 0-5."
    assert attribute(html, "data-rows") is None
    assert re.fullmatch(r".+\|0", attribute(html, "data-context"))
    assert attribute(html, "data-passage")
    assert "Span: <kbd>j</kbd>/<kbd>k</kbd>" in html and "<kbd>↑</kbd>" not in html


def test_report_coverage_answers_by_row_with_arrows_and_spans():
    html = item_html(REPORT_COVERAGE)
    assert attribute(html, "data-rows") == "1"
    assert attribute(html, "data-key-field") == "answer_"
    assert json.loads(attribute(html, "data-key-values")) == {"y": "yes", "n": "no"}
    assert "<kbd>↓</kbd> sub-question" in html and "Span: <kbd>j</kbd>" in html
    assert attribute(html, "data-context") is None


def test_answer_equivalence_has_neither_rows_nor_spans():
    html = item_html(ANSWER_EQUIVALENCE)
    assert attribute(html, "data-key-field") == "equivalent"
    assert "<kbd>↑</kbd>" not in html and "Span:" not in html


def _toy_collection(name: str) -> Collection:
    collection = Collection.objects.create(name=name)
    for n in range(3):
        Topic.objects.create(collection=collection, external_id=f"t{n}", request=f"Why {n}?")
    return collection


def test_a_declared_type_is_made_from_chosen_keys_among_its_eligible_ones(toy):
    collection = _toy_collection("toy")
    stranger = Topic.objects.create(
        collection=_toy_collection("elsewhere"), external_id="x", request="?"
    )
    topics = list(collection.topics.order_by("external_id").values_list("pk", flat=True))
    campaign = Campaign(name="chosen", collection=collection, task_type=TOY_KEY, overlap=1)
    made = create_campaign_from_items(campaign, [topics[2], str(topics[0])], {})
    assert [i.payload["text"] for i in made.items.order_by("pk")] == ["Why 2?", "Why 0?"]
    other = Campaign(name="other", collection=collection, task_type=TOY_KEY, overlap=1)
    with pytest.raises(SelectionError) as caught:
        create_campaign_from_items(other, [stranger.pk], {})
    assert caught.value.field == "items" and "not an item of this task" in str(caught.value)
    with pytest.raises(SelectionError):
        create_campaign_from_items(other, [topics[0], topics[0]], {})


def test_passage_rating_keys_must_be_triples():
    collection = Collection.objects.create(name="c")
    campaign = Campaign(name="bad", collection=collection, task_type=PASSAGE_RATING, overlap=1)
    with pytest.raises(SelectionError) as caught:
        create_campaign_from_items(campaign, [(1, 2)], {})
    assert "(topic, sub-question, passage)" in str(caught.value)


def test_a_type_without_a_platform_writer_exports_csv_only(toy):
    campaign = make_campaign(TOY_KEY, collection=_toy_collection("toy"))
    with pytest.raises(CampaignExportError) as caught:
        write_platform_labels(campaign, make_annotator("anna"), io.StringIO())
    assert "export CSV instead" in str(caught.value)
