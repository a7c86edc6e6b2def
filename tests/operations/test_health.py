"""/healthz, /readyz and ``manage.py worker_alive``."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from tests.operations.heartbeats import fresh_workers, make_stale
from tests.worker_fixtures import BROKER_URL

pytestmark = pytest.mark.django_db


@pytest.fixture
def reachable_broker(settings):
    settings.CELERY_BROKER_URL = BROKER_URL


def test_healthz_answers_without_a_query_a_login_or_a_known_host(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz", HTTP_HOST="10.20.30.40:8000")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert client.post("/healthz").status_code == 405


def test_readyz_is_ready_with_every_check_named(client, reachable_broker):
    fresh_workers()
    response = client.get("/readyz", HTTP_HOST="10.20.30.40")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ready"
    assert {"database", "broker", "cache", "queue:gpu", "queue:cpu"} <= set(body["checks"])
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["queue:gpu"]["detail"] == "1 live worker(s)"


def test_a_dead_worker_makes_readyz_503_naming_its_queue(client, reachable_broker):
    fresh_workers()
    make_stale("gpu@host")
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "not ready"
    assert body["checks"]["queue:gpu"] == {
        "ok": False,
        "detail": "no worker heartbeat within 45 s",
    }
    assert body["checks"]["queue:cpu"]["ok"] and body["checks"]["database"]["ok"]


def test_an_unreachable_broker_is_named_without_its_url_or_password(client, settings):
    fresh_workers()
    settings.CELERY_BROKER_URL = "redis://ops:hunter2-secret@127.0.0.1:1/0"
    response = client.get("/readyz")
    assert response.status_code == 503
    text = response.content.decode()
    assert json.loads(text)["checks"]["broker"]["ok"] is False
    for leaked in ("hunter2", "ops:", "127.0.0.1:1", "redis://", "postgres"):
        assert leaked not in text


def test_queues_of_the_beat_schedule_and_routes_are_checked_too(client, settings):
    settings.CELERY_BEAT_SCHEDULE = {
        "sweep": {"task": "x.sweep", "schedule": 60, "options": {"queue": "maintenance"}}
    }
    fresh_workers()
    body = client.get("/readyz").json()
    assert body["checks"]["queue:maintenance"]["ok"] is True


def test_worker_alive_exits_zero_for_a_fresh_worker_and_one_for_a_stale_one(capsys):
    fresh_workers()
    call_command("worker_alive", "--queue", "gpu")
    assert "alive: gpu@host" in capsys.readouterr().out
    call_command("worker_alive", "--worker", "cpu@host")
    make_stale("gpu@host")
    with pytest.raises(CommandError, match="no live worker for queue gpu") as failed:
        call_command("worker_alive", "--queue", "gpu")
    assert failed.value.returncode == 1
    with pytest.raises(CommandError, match="no live worker for queue gpu and cpu@host"):
        call_command("worker_alive", "--queue", "gpu", "--worker", "cpu@host")
