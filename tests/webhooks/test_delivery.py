"""Deliveries against a real HTTP server in a thread: signed headers, retries with exponential
backoff after failures, every attempt stored, bounded excerpts and timeouts, the address
checked again at each attempt, redelivery."""

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.webhooks.endpoints import SECRET, make_endpoint
from webhooks.bounded_post import EXCERPT_CHARS
from webhooks.delivery import attempt_delivery, retry_delay
from webhooks.event_types import TEST
from webhooks.events import redeliver, send_test_event
from webhooks.models import Delivery
from webhooks.signing import verify

pytestmark = pytest.mark.django_db


def _test_delivery(url: str) -> Delivery:
    return send_test_event(make_endpoint(url))


def _due(delivery: Delivery):
    """The time of the delivery's next try (tests jump there instead of waiting)."""
    delivery.refresh_from_db()
    return delivery.next_attempt_at


def test_retry_delay_doubles_from_the_base_up_to_an_hour(settings):
    settings.WEBHOOKS_RETRY_BASE_SECONDS = 30
    assert [retry_delay(n) for n in (1, 2, 3, 4, 5)] == [30, 60, 120, 240, 480]
    assert retry_delay(20) == 3600


def test_failures_are_retried_with_backoff_until_the_receiver_answers(receiver):
    receiver.fail_first = 2
    delivery = _test_delivery(receiver.url)
    first = attempt_delivery(delivery.pk)
    assert (first.attempted, first.retry_in) == (True, 1.0)  # base 1 s (conftest)
    # Not due yet: a duplicate task makes no attempt.
    assert not attempt_delivery(delivery.pk).attempted
    second = attempt_delivery(delivery.pk, now=_due(delivery))
    assert second.retry_in == 2.0
    third = attempt_delivery(delivery.pk, now=_due(delivery))
    assert (third.attempted, third.retry_in) == (True, None)
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == (Delivery.State.SUCCEEDED, 3)
    attempts = list(delivery.attempt_rows.all())
    assert [a.status_code for a in attempts] == [500, 500, 200]
    assert attempts[0].response_excerpt == "temporarily broken"
    assert attempts[2].response_excerpt == '{"ok": true}'
    assert len(receiver.requests) == 3
    # Finished: a late duplicate task sends nothing.
    assert not attempt_delivery(delivery.pk, now=timezone.now() + timedelta(days=1)).attempted
    assert len(receiver.requests) == 3


def test_the_request_is_signed_json_with_event_and_delivery_headers(receiver):
    delivery = _test_delivery(receiver.url)
    attempt_delivery(delivery.pk)
    request = receiver.requests[0]
    assert request.path == "/hooks/crux?via=test"
    headers = request.headers
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Crux-Event"] == TEST
    assert headers["X-Crux-Delivery"] == str(delivery.uuid)
    assert verify(SECRET, request.body, headers["X-Crux-Timestamp"], headers["X-Crux-Signature"])
    assert not verify(
        "wrong", request.body, headers["X-Crux-Timestamp"], headers["X-Crux-Signature"]
    )
    payload = json.loads(request.body)
    assert payload["type"] == TEST
    assert payload["id"] == str(delivery.event.uuid)


def test_attempts_run_out_and_the_delivery_fails(receiver, settings):
    settings.WEBHOOKS_MAX_ATTEMPTS = 2
    receiver.fail_first = 10
    delivery = _test_delivery(receiver.url)
    assert attempt_delivery(delivery.pk).retry_in == 1.0
    assert attempt_delivery(delivery.pk, now=_due(delivery)).retry_in is None
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == (Delivery.State.FAILED, 2)
    # Redeliver: a fresh series of attempts, numbered after the old ones.
    receiver.fail_first = 0
    redeliver(delivery)
    assert attempt_delivery(delivery.pk).retry_in is None
    delivery.refresh_from_db()
    assert (delivery.state, delivery.attempts) == (Delivery.State.SUCCEEDED, 3)
    assert list(delivery.attempt_rows.values_list("number", "status_code")) == [
        (1, 500),
        (2, 500),
        (3, 200),
    ]


def test_response_excerpt_is_bounded(receiver):
    receiver.reply = b"x" * 100_000
    delivery = _test_delivery(receiver.url)
    attempt_delivery(delivery.pk)
    attempt = delivery.attempt_rows.get()
    assert attempt.status_code == 200
    assert attempt.response_excerpt == "x" * EXCERPT_CHARS


def test_a_slow_receiver_times_out_and_is_retried(receiver, settings):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.3
    receiver.delay_s = 1.0
    delivery = _test_delivery(receiver.url)
    outcome = attempt_delivery(delivery.pk)
    assert outcome.retry_in == 1.0
    attempt = delivery.attempt_rows.get()
    assert attempt.status_code is None
    assert "timed out" in attempt.error.lower()
    assert attempt.duration_ms < 1000


def test_a_closed_port_is_an_error_and_retried():
    delivery = _test_delivery("http://127.0.0.1:9/hooks")  # discard port: nothing listens
    assert attempt_delivery(delivery.pk).retry_in == 1.0
    attempt = delivery.attempt_rows.get()
    assert attempt.status_code is None
    assert attempt.error


def test_the_address_is_checked_again_at_each_attempt(receiver, settings):
    delivery = _test_delivery(receiver.url)  # allowed when it was registered
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    assert attempt_delivery(delivery.pk).retry_in is None  # refused: not retried
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.FAILED
    assert "public addresses only" in delivery.attempt_rows.get().error
    assert receiver.requests == []


@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_receiver_dribbling_its_answer_is_cut_off_at_the_total_bound(receiver, settings, part):
    """One byte every 0.2 s never lets a read time out; the attempt still ends at its total
    bound and counts as failed (then retried), not delivered."""
    settings.WEBHOOKS_TIMEOUT_SECONDS = 1.0
    receiver.dribble = part
    delivery = _test_delivery(receiver.url)
    started = time.monotonic()
    outcome = attempt_delivery(delivery.pk)
    elapsed = time.monotonic() - started
    assert elapsed < 1.8, elapsed
    assert outcome.retry_in == 1.0
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.PENDING
    attempt = delivery.attempt_rows.get()
    assert attempt.status_code is None
    assert "timed out" in attempt.error and "within 1 s" in attempt.error
    assert attempt.duration_ms < 1800


def test_an_answer_within_the_bound_is_delivered(receiver, settings):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 3.0
    receiver.dribble, receiver.dribble_every_s = "body", 0.001
    delivery = _test_delivery(receiver.url)
    assert attempt_delivery(delivery.pk).retry_in is None
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.SUCCEEDED
    assert delivery.attempt_rows.get().response_excerpt == "x" * 200


def test_the_peer_address_connected_to_is_checked(receiver, settings, monkeypatch):
    """Were the name to resolve differently between the check and the connection, the socket's
    peer address is refused all the same."""
    import webhooks.address_guard as guard

    delivery = _test_delivery(receiver.url)
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    checked = guard.Destination("http", "hooks.example.org", 80, "/", "127.0.0.1")
    monkeypatch.setattr(
        "webhooks.delivery.check_destination",
        lambda url, **kw: guard.Destination(
            "http", checked.host, receiver.server.server_address[1], "/", checked.address
        ),
    )
    assert attempt_delivery(delivery.pk).retry_in is None
    attempt = delivery.attempt_rows.get()
    assert "connected to 127.0.0.1" in attempt.error
    assert receiver.requests == []


def test_https_to_a_receiver_without_tls_fails_within_the_bound(receiver, settings):
    settings.WEBHOOKS_TIMEOUT_SECONDS = 1.0
    receiver.dribble = "headers"  # answers in plain HTTP, slowly: the handshake cannot finish
    delivery = _test_delivery(receiver.url.replace("http://", "https://"))
    started = time.monotonic()
    assert attempt_delivery(delivery.pk).retry_in == 1.0
    assert time.monotonic() - started < 1.8
    assert delivery.attempt_rows.get().status_code is None


def test_deliveries_have_their_own_queue(settings):
    """Routed off the one-slot `cpu` queue, so a slow receiver never holds up an import."""
    from crux_app.celery import app

    assert (
        app.amqp.router.route({}, "webhooks.deliver")["queue"].name
        == settings.WEBHOOKS_QUEUE
        == "webhooks"
    )
    assert app.amqp.router.route({}, "webhooks.sweep")["queue"].name == "webhooks"
    assert app.amqp.router.route({}, "crux_app.no_such_task")["queue"].name == "cpu"
