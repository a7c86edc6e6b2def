"""Webhook endpoints, the events recorded for them, one delivery per (event, endpoint) and each
HTTP attempt of a delivery."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from .event_types import SUBSCRIBABLE

MAX_URL_CHARS = 500
MAX_SECRET_CHARS = 200
SECRET_SHOWN_CHARS = 4  # the last characters a page shows of a secret


class EndpointQuerySet(models.QuerySet):
    def visible_to(self, user: Any) -> EndpointQuerySet:
        """The endpoints ``user`` may see and change: their own; every one for a superuser
        (an endpoint whose maker's account is gone is theirs alone)."""
        if getattr(user, "is_superuser", False):
            return self
        if not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(created_by=user)


class Endpoint(models.Model):
    """A URL that receives the chosen events of one collection (or of all), signed with
    ``secret`` (kept in clear: it must sign every delivery; pages only show it masked).
    It belongs to the researcher who made it: the pages show it to them (and superusers)."""

    url = models.URLField(max_length=MAX_URL_CHARS)
    secret = models.CharField(max_length=MAX_SECRET_CHARS)
    collection = models.ForeignKey(
        "crux_app.Collection",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="webhook_endpoints",
        help_text="Empty: every collection.",
    )
    events = ArrayField(models.CharField(max_length=64), default=list)
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EndpointQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.url

    @property
    def masked_secret(self) -> str:
        return "•" * 8 + self.secret[-SECRET_SHOWN_CHARS:]

    def subscribes_to(self, event: str) -> bool:
        return event in self.events

    @property
    def known_events(self) -> list[str]:
        return [event for event in self.events if event in SUBSCRIBABLE]


class Event(models.Model):
    """One occurrence, recorded once: ``key`` (e.g. ``job:12:job.failed``) is unique, so a
    duplicate save or a second sweep of the same transition records nothing more."""

    key = models.CharField(max_length=200, unique=True)
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    type = models.CharField(max_length=64)
    collection = models.ForeignKey(
        "crux_app.Collection",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # The job an event is about (the sweep looks for finished jobs without one).
    job_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.key


class Delivery(models.Model):
    """One event to one endpoint: pending until an attempt gets a 2xx (succeeded) or the
    attempts run out (failed)."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # Attempts made before the last "redeliver": the current series counts from here.
    series_start = models.PositiveIntegerField(default=0)
    # A task that arrives before this (a duplicate of an earlier try) does nothing.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "endpoint"], name="webhook_delivery_once")
        ]

    def __str__(self) -> str:
        return f"{self.event.type} -> {self.endpoint_id}"


class Attempt(models.Model):
    """One HTTP POST of a delivery and what came back."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_rows")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    response_excerpt = models.TextField(blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="webhook_attempt_once")
        ]

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
