"""Webhook pages: researchers only; the form's bounds (garbage is a 400); the secret shown once,
then masked; the delivery log with "send test event" and "redeliver"."""

import pytest
from django.urls import reverse

from crux_app.roles import RESEARCHER, add_role
from tests.crux_app.factories import make_collection
from tests.webhooks.endpoints import SECRET, make_endpoint
from webhooks.delivery import attempt_delivery
from webhooks.event_types import JOB_FAILED, TEST
from webhooks.events import send_test_event
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db


def _form(**fields):
    data = {"url": "https://8.8.8.8/hooks", "events": [JOB_FAILED]}
    data.update(fields)
    return data


def test_pages_are_for_researchers_only(client, annotator):
    endpoint = make_endpoint()
    delivery = send_test_event(endpoint)
    urls = [
        reverse("webhook-list"),
        reverse("webhook-create"),
        reverse("webhook-detail", args=[endpoint.pk]),
        reverse("webhook-delivery", args=[delivery.pk]),
    ]
    for url in urls:
        assert client.get(url).status_code == 302  # to the login page
    client.force_login(annotator)
    for url in urls:
        assert client.get(url).status_code == 403
    assert client.post(reverse("webhook-test", args=[endpoint.pk])).status_code == 403
    assert client.post(reverse("webhook-redeliver", args=[delivery.pk])).status_code == 403


def test_register_shows_the_secret_once_then_masked(researcher_client):
    collection = make_collection("c1")
    data = _form(secret="my-receiver-secret-0001", collection=str(collection.pk))
    response = researcher_client.post(reverse("webhook-create"), data)
    endpoint = Endpoint.objects.get()
    # Post/redirect/get: the secret waits in the session for the page after the redirect.
    created = reverse("webhook-created", args=[endpoint.pk])
    assert response.status_code == 302 and response.url == created
    shown = researcher_client.get(created)
    assert "my-receiver-secret-0001" in shown.content.decode()
    assert "no-store" in shown.headers["Cache-Control"]
    # Reloaded: the secret is gone (popped), the endpoint's page instead; nothing made twice.
    reloaded = researcher_client.get(created)
    assert reloaded.status_code == 302
    assert reloaded.url == reverse("webhook-detail", args=[endpoint.pk])
    assert not any("0001" in str(v) for v in researcher_client.session.values())
    assert Endpoint.objects.count() == 1
    assert (endpoint.url, endpoint.collection, endpoint.events) == (
        "https://8.8.8.8/hooks",
        collection,
        [JOB_FAILED],
    )
    assert endpoint.secret == "my-receiver-secret-0001"
    for url in (reverse("webhook-list"), reverse("webhook-detail", args=[endpoint.pk])):
        page = researcher_client.get(url).content.decode()
        assert "my-receiver-secret-0001" not in page
        assert "••••••••0001" in page


def test_an_empty_secret_gets_a_random_one(researcher_client):
    response = researcher_client.post(reverse("webhook-create"), _form())
    secret = Endpoint.objects.get().secret
    assert len(secret) >= 32
    assert secret in researcher_client.get(response.url).content.decode()


def test_the_created_page_shows_a_secret_only_for_its_own_endpoint(researcher_client):
    first = researcher_client.post(reverse("webhook-create"), _form(secret="first-secret-00000001"))
    older = make_endpoint("https://8.8.8.8/older")
    older.created_by = first.wsgi_request.user
    older.save()
    other = researcher_client.get(reverse("webhook-created", args=[older.pk]))
    assert other.status_code == 302 and "first-secret" not in other.content.decode()
    assert "first-secret-00000001" in researcher_client.get(first.url).content.decode()


GARBAGE = [
    {"url": "ftp://8.8.8.8/x"},
    {"url": "javascript:alert(1)"},
    {"url": "https://8.8.8.8/" + "a" * 600},
    {"url": "http://127.0.0.1:8000/hook"},  # loopback, with private destinations refused
    {"url": "http://10.0.0.5/hook"},
    {"url": "https://8.8.8.8/\x00"},
    {"url": ""},
    {"events": ["job.exploded"]},
    {"events": []},
    {"collection": "abc"},
    {"collection": str(10**30)},
    {"collection": "99999999"},
    {"secret": "short"},
    {"secret": "x" * 201},
    {"secret": "tab\tinside-a-long-secret"},
]


def test_garbage_is_a_400_and_nothing_is_stored(researcher_client, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    for fields in GARBAGE:
        response = researcher_client.post(reverse("webhook-create"), _form(**fields))
        assert response.status_code == 400, fields
    assert not Endpoint.objects.exists()


def test_delivery_log_lists_attempts_and_sends_test_events(
    researcher_client, researcher, receiver, django_capture_on_commit_callbacks
):
    endpoint = make_endpoint(receiver.url, owner=researcher)
    with django_capture_on_commit_callbacks() as queued:
        response = researcher_client.post(reverse("webhook-test", args=[endpoint.pk]))
    delivery = Delivery.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("webhook-delivery", args=[delivery.pk])
    assert delivery.event.type == TEST
    assert len(queued) == 1  # the task is sent after the commit
    receiver.fail_first = 1
    attempt_delivery(delivery.pk)
    log = researcher_client.get(reverse("webhook-detail", args=[endpoint.pk])).content.decode()
    assert log.count('class="delivery-row"') == 1
    assert TEST in log and str(delivery.uuid) in log
    page = researcher_client.get(reverse("webhook-delivery", args=[delivery.pk])).content.decode()
    assert page.count('class="attempt-row"') == 1
    assert "temporarily broken" in page and ">500<" in page
    assert SECRET not in page
    # Redeliver: pending again, a new series, its task sent after the commit.
    with django_capture_on_commit_callbacks() as queued:
        researcher_client.post(reverse("webhook-redeliver", args=[delivery.pk]))
    delivery.refresh_from_db()
    assert (delivery.state, delivery.series_start, len(queued)) == ("pending", 1, 1)
    attempt_delivery(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.SUCCEEDED


def test_log_paging_garbage_is_a_400(researcher_client, researcher):
    endpoint = make_endpoint(owner=researcher)
    url = reverse("webhook-detail", args=[endpoint.pk])
    for bad in ({"page": "abc"}, {"page": str(10**30)}, {"size": "7"}, {"q": "\x00"}):
        assert researcher_client.get(url, bad).status_code == 400
    assert researcher_client.get(url, {"page": "2"}).status_code == 200


def test_switch_off_and_delete(researcher_client, researcher):
    endpoint = make_endpoint(owner=researcher)
    url = reverse("webhook-active", args=[endpoint.pk])
    assert researcher_client.post(url, {"active": "maybe"}).status_code == 400
    researcher_client.post(url, {"active": "0"})
    endpoint.refresh_from_db()
    assert not endpoint.active
    researcher_client.post(reverse("webhook-delete", args=[endpoint.pk]))
    assert not Endpoint.objects.exists()


def test_endpoints_belong_to_their_maker(client, researcher, django_user_model):
    """Another researcher neither sees nor changes nor reads the log of an endpoint (404); a
    superuser sees every one."""
    mine = make_endpoint("https://8.8.8.8/mine", owner=researcher)
    delivery = send_test_event(mine)
    other = django_user_model.objects.create_user("otto", password="research-pass-2")
    add_role(other, RESEARCHER)
    theirs = make_endpoint("https://8.8.8.8/theirs", owner=other)
    client.force_login(other)
    listing = client.get(reverse("webhook-list")).content.decode()
    assert "8.8.8.8/theirs" in listing and "8.8.8.8/mine" not in listing
    for url in (
        reverse("webhook-detail", args=[mine.pk]),
        reverse("webhook-delivery", args=[delivery.pk]),
    ):
        assert client.get(url).status_code == 404
    for name in ("webhook-test", "webhook-delete"):
        assert client.post(reverse(name, args=[mine.pk])).status_code == 404
    assert (
        client.post(reverse("webhook-active", args=[mine.pk]), {"active": "0"}).status_code == 404
    )
    assert client.post(reverse("webhook-redeliver", args=[delivery.pk])).status_code == 404
    mine.refresh_from_db()
    assert mine.active and Delivery.objects.filter(endpoint=mine).count() == 1
    assert client.get(reverse("webhook-detail", args=[theirs.pk])).status_code == 200

    admin = django_user_model.objects.create_superuser("root", password="admin-pass-123")
    client.force_login(admin)
    listing = client.get(reverse("webhook-list")).content.decode()
    assert "8.8.8.8/theirs" in listing and "8.8.8.8/mine" in listing
    assert client.get(reverse("webhook-detail", args=[mine.pk])).status_code == 200
