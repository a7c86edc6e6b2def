"""The Celery workers alive now, as they report themselves: which queues each consumes, how many
jobs it runs at once, and when it last reported (crux_app.jobs.heartbeat writes these rows)."""

from django.db import models


class WorkerHeartbeat(models.Model):
    hostname = models.CharField(max_length=255, unique=True)  # Celery's node name, gpu@host
    queues = models.JSONField(default=list)  # the queue names it consumes
    concurrency = models.PositiveIntegerField(default=1)  # jobs it runs at once
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["hostname"]

    def __str__(self) -> str:
        return f"{self.hostname} ({', '.join(self.queues)})"
