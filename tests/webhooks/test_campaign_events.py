"""Campaign events, from the labels annotators submit: ``campaign.completed`` when every item
has its overlap, ``campaign.label_quota_reached`` at items x overlap labels; each once."""

import pytest

from annotation.models import CampaignItem
from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.webhooks.endpoints import make_endpoint
from webhooks.event_types import CAMPAIGN_COMPLETED, CAMPAIGN_LABEL_QUOTA_REACHED
from webhooks.models import Delivery, Event

pytestmark = pytest.mark.django_db

RATING = {"rating": 3, "rationale": "", "rationale_start": None, "rationale_end": None}


def _label_next(campaign, user, capture) -> bool:
    """Submit the annotator's next item (the campaign checked after the commit, as in a
    request); False when there is none."""
    assignment = queue.next_item(campaign, user).assignment
    if assignment is None:
        return False
    with capture(execute=True):
        submit(assignment, RATING, 1000)
    return True


def _types() -> list[str]:
    return sorted(Event.objects.values_list("type", flat=True))


def test_the_last_label_completes_the_campaign_once(django_capture_on_commit_callbacks):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    endpoint = make_endpoint(collection=campaign.collection)
    n_items = campaign.items.regular().count()
    assert n_items > 2
    for _ in range(n_items - 1):
        assert _label_next(campaign, anna, django_capture_on_commit_callbacks)
        assert _types() == []
    assert _label_next(campaign, anna, django_capture_on_commit_callbacks)
    assert _types() == [CAMPAIGN_COMPLETED, CAMPAIGN_LABEL_QUOTA_REACHED]
    completed = Event.objects.get(type=CAMPAIGN_COMPLETED)
    data = completed.payload["data"]["campaign"]
    assert (data["id"], data["items"], data["complete_items"], data["labels"]) == (
        campaign.pk,
        n_items,
        n_items,
        n_items,
    )
    assert data["label_quota"] == n_items
    assert data["url"] == f"http://localhost:8000/campaigns/{campaign.pk}/"
    assert completed.key == f"campaign:{campaign.pk}:campaign.completed"
    assert Delivery.objects.filter(endpoint=endpoint).count() == 2
    # Another label after completion (a second annotator) sends nothing more.
    ben = make_annotator("ben")
    campaign.invited.add(ben)
    campaign.overlap = 2
    campaign.save(update_fields=["overlap"])
    _label_next(campaign, ben, django_capture_on_commit_callbacks)
    assert Event.objects.count() == 2


def test_quota_can_come_before_completion(django_capture_on_commit_callbacks):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    make_endpoint()
    items = list(campaign.items.regular().order_by("pk"))
    # One item got a late second label (its reservation had expired): labels run ahead.
    CampaignItem.objects.filter(pk=items[0].pk).update(annotations_done=2)
    for _ in range(len(items) - 2):
        _label_next(campaign, anna, django_capture_on_commit_callbacks)
    assert _types() == [CAMPAIGN_LABEL_QUOTA_REACHED]
    _label_next(campaign, anna, django_capture_on_commit_callbacks)
    assert _types() == [CAMPAIGN_COMPLETED, CAMPAIGN_LABEL_QUOTA_REACHED]


def test_no_endpoint_no_campaign_events(django_capture_on_commit_callbacks):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    while _label_next(campaign, anna, django_capture_on_commit_callbacks):
        pass
    assert not Event.objects.exists()
