"""The audit trail: one append-only row per change of an audited row, and per event the
application records itself (an import, an export downloaded).

Row changes are written by PostgreSQL triggers (``crux_app.audit.triggers``), so COPY, staged
upserts, ``update()`` and raw SQL are recorded like an ORM ``save()``. The database refuses an
UPDATE or DELETE of this table (a trigger installed by the migration); the model refuses too.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone


class AppendOnly(RuntimeError):
    """The audit trail is never changed or deleted through the application."""


class AuditEvent(models.Model):
    id = models.BigAutoField(primary_key=True)
    at = models.DateTimeField(default=timezone.now)
    # "<model>.insert|update|delete" for a row change; "import", "export.download", ... else.
    kind = models.CharField(max_length=60)
    table = models.CharField(max_length=100, blank=True)  # the changed row's table
    row_id = models.BigIntegerField(null=True, blank=True)
    # Plain numbers, not foreign keys: the record outlives the collection and the user.
    collection_id = models.BigIntegerField(null=True, blank=True)
    user_id = models.BigIntegerField(null=True, blank=True)
    username = models.CharField(max_length=150, blank=True)
    origin = models.CharField(max_length=20, blank=True)  # web, api, job, command; "" unknown
    # Where from: path, method, address, request id, job id, API token id.
    context = models.JSONField(default=dict, blank=True)
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["collection_id", "at"], name="audit_collection_at_idx"),
            models.Index(fields=["table", "row_id"], name="audit_row_idx"),
            # The application's own events (imports, downloads) among millions of row changes:
            # /metrics sums the imports' rows at every scrape.
            models.Index(fields=["kind"], name="audit_event_kind_idx", condition=Q(table="")),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.kind} by {self.username or '?'}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not self._state.adding:
            raise AppendOnly("the audit trail is append-only: a record is never changed")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("the audit trail is append-only: a record is never deleted")
