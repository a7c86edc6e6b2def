"""An annotator's unfinished answer, kept on the assignment; saving it extends a held
reservation."""

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment


def save_draft(assignment: Assignment, draft: dict[str, Any], now: datetime | None = None) -> bool:
    """Keep the unfinished answer, and extend a held reservation; False once submitted."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = (
            Assignment.objects.select_for_update().select_related("campaign").get(pk=assignment.pk)
        )
        if locked.state == Assignment.State.SUBMITTED:
            return False
        locked.draft = draft
        fields = ["draft"]
        # A reservation not yet released still counts in the item's load: extending it is safe.
        if locked.state == Assignment.State.RESERVED:
            locked.reserved_until = now + timedelta(seconds=locked.campaign.reservation_seconds)
            fields.append("reserved_until")
        locked.save(update_fields=fields)
    return True
