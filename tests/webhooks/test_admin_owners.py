"""/admin/ for webhooks, API tokens and export files: a staff researcher (every model
permission, as the demo's) sees and deletes only their own endpoints, deliveries (with their
error texts), events and tokens; another owner's answer "not found"; a superuser sees all."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from api.models import ApiToken, ExportFile
from api.tokens import issue_token
from crux_app.account_setup import ensure_account
from crux_app.models import Job
from crux_app.roles import RESEARCHER
from tests.webhooks.endpoints import make_endpoint
from webhooks.events import send_test_event
from webhooks.models import Attempt, Delivery, Endpoint

pytestmark = pytest.mark.django_db


def _staff(username: str):
    ensure_account(username, "staff-pass-123", RESEARCHER, staff=True)
    return get_user_model().objects.get(username=username)


@pytest.fixture
def owners():
    """Two staff researchers, each with an endpoint, a failed attempt, a token, an export."""
    made = {}
    for name in ("rita", "otto"):
        user = _staff(name)
        endpoint = make_endpoint(f"https://8.8.8.8/{name}-hook", owner=user)
        delivery = send_test_event(endpoint)
        Attempt.objects.create(
            delivery=delivery,
            number=1,
            started_at=timezone.now(),
            error=f"ConnectionRefused: {name}-private-error",
        )
        token, _ = issue_token(user, f"{name}-token")
        job = Job.objects.create(kind="export", created_by=user)
        export = ExportFile.objects.create(
            job=job,
            path=f"{name}.csv",
            filename=f"{name}-export.csv",
            content_type="text/csv",
            expires_at=timezone.now() + timedelta(hours=1),
        )
        made[name] = {
            "user": user,
            "endpoint": endpoint,
            "delivery": delivery,
            "token": token,
            "export": export,
        }
    return made


def _admin(model: str, *args: object, action: str = "changelist") -> str:
    app = {"endpoint": "webhooks", "delivery": "webhooks", "event": "webhooks"}.get(model, "api")
    return reverse(f"admin:{app}_{model}_{action}", args=args)


def test_a_staff_researcher_sees_only_their_own_rows(client, owners):
    client.force_login(owners["rita"]["user"])
    pages = {
        "endpoint": "-hook",
        "delivery": "-hook",
        "event": "webhook.test",
        "apitoken": "-token",
        "exportfile": "-export.csv",
    }
    for model in pages:
        page = client.get(_admin(model))
        assert page.status_code == 200, model
        text = page.content.decode()
        assert "otto" not in text, model
    assert "rita-hook" in client.get(_admin("endpoint")).content.decode()
    assert "rita-token" in client.get(_admin("apitoken")).content.decode()
    assert "rita-export.csv" in client.get(_admin("exportfile")).content.decode()
    mine = client.get(_admin("delivery", owners["rita"]["delivery"].pk, action="change"))
    assert mine.status_code == 200 and "rita-private-error" in mine.content.decode()
    otto = owners["otto"]
    for model, obj in (
        ("endpoint", otto["endpoint"]),
        ("delivery", otto["delivery"]),
        ("event", otto["delivery"].event),
        ("apitoken", otto["token"]),
        ("exportfile", otto["export"]),
    ):
        for action in ("change", "delete"):
            # Django's answer to a row outside the account's queryset: "doesn't exist".
            response = client.get(_admin(model, obj.pk, action=action))
            if (model, action) == ("event", "delete"):
                assert response.status_code == 403  # events: only superusers delete them
                continue
            assert response.status_code == 302, (model, action)
            assert response.url == reverse("admin:index"), (model, action)


def test_a_staff_researcher_cannot_delete_another_owners_rows(client, owners):
    client.force_login(owners["rita"]["user"])
    otto = owners["otto"]
    for model, obj in (
        ("endpoint", otto["endpoint"]),
        ("delivery", otto["delivery"]),
        ("apitoken", otto["token"]),
    ):
        client.post(_admin(model, obj.pk, action="delete"), {"post": "yes"})
    # The bulk action only reaches the account's own rows.
    client.post(
        _admin("endpoint"),
        {
            "action": "delete_selected",
            "_selected_action": [otto["endpoint"].pk],
            "post": "yes",
        },
    )
    assert Endpoint.objects.filter(pk=otto["endpoint"].pk).exists()
    assert Delivery.objects.filter(pk=otto["delivery"].pk).exists()
    assert ApiToken.objects.filter(pk=otto["token"].pk).exists()
    # Their own they may delete.
    rita = owners["rita"]
    client.post(_admin("endpoint", rita["endpoint"].pk, action="delete"), {"post": "yes"})
    assert not Endpoint.objects.filter(pk=rita["endpoint"].pk).exists()


def test_a_superuser_sees_every_owners_rows(client, owners):
    root = get_user_model().objects.create_superuser("root", password="admin-pass-123")
    client.force_login(root)
    for model, marker in (("endpoint", "-hook"), ("apitoken", "-token")):
        text = client.get(_admin(model)).content.decode()
        assert f"rita{marker}" in text and f"otto{marker}" in text
    otto_delivery = owners["otto"]["delivery"].pk
    page = client.get(_admin("delivery", otto_delivery, action="change"))
    assert "otto-private-error" in page.content.decode()
