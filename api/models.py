"""Personal API tokens: only a digest is stored; the token itself is shown once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ApiTokenQuerySet(models.QuerySet):
    def active(self) -> ApiTokenQuerySet:
        """Not revoked and not expired."""
        unexpired = Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
        return self.filter(unexpired, revoked_at__isnull=True)


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="what the token is for")
    # The first characters of the token, shown on the page so its owner can tell tokens apart.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)  # sha256 hex of the whole token
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Empty: the token lives until it is revoked.
    expires_at = models.DateTimeField(null=True, blank=True)
    # Narrowing (``crux_app.access.Access.of``): the token sees one workspace only (empty: every
    # one its user is in), and with ``read_only`` may only read (safe methods). CASCADE: a token
    # narrowed to a deleted workspace goes with it (SET_NULL would widen it to every one).
    workspace = models.ForeignKey(
        "crux_app.Workspace",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_tokens",
        help_text="empty: every workspace of its user",
    )
    read_only = models.BooleanField(default=False)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user}"

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired


class ExportFile(models.Model):
    """The file an export job wrote (under ``API_EXPORT_DIR``), downloadable until
    ``expires_at`` (``API_EXPORT_TTL_SECONDS`` after it was written); then it is deleted."""

    job = models.OneToOneField("crux_app.Job", on_delete=models.CASCADE, related_name="export")
    path = models.CharField(max_length=300)  # relative to API_EXPORT_DIR
    filename = models.CharField(max_length=200)  # the download's name
    content_type = models.CharField(max_length=100)
    rows = models.PositiveBigIntegerField(default=0)
    size = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.filename} (job #{self.job_id})"
