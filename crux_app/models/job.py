"""Every Celery job the app starts: kind, parameters, state, progress, errors, timings."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from crux_app.url_credentials import mask_credentials


class JobCancelled(Exception):
    """The job was cancelled before a worker started it: nothing is to be done."""


def _current_worker() -> str:
    """Hostname of the Celery worker running this code ("" outside a worker's task)."""
    from celery import current_task

    return getattr(getattr(current_task, "request", None), "hostname", None) or ""


class JobQuerySet(models.QuerySet):
    def for_collection(self, collection: models.Model) -> "JobQuerySet":
        return self.filter(collection=collection)

    def for_topic(self, topic: models.Model) -> "JobQuerySet":
        """Jobs of this topic, plus its collection's jobs that ran over every topic."""
        return self.filter(
            Q(topic=topic) | Q(collection_id=topic.collection_id, topic__isnull=True)
        )

    def unfinished(self) -> "JobQuerySet":
        return self.filter(state__in=[Job.State.PENDING, Job.State.RUNNING])


class Job(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=64)
    params = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True)
    message = models.TextField(blank=True)
    celery_task_id = models.CharField(max_length=100, blank=True)
    collection = models.ForeignKey(
        "crux_app.Collection", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    topic = models.ForeignKey(
        "crux_app.Topic", null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    attempts = models.PositiveIntegerField(default=0)
    # Set by a researcher's cancel: the worker stops before its next batch (stored results kept).
    cancel_requested = models.BooleanField(default=False)
    # Model tokens this job spent (every attempt), as the backends counted them.
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # When the current attempt started its batches: the clock of the time-left estimate.
    running_since = models.DateTimeField(null=True, blank=True)
    # The Celery worker (hostname) running the current attempt: whose slot it holds.
    worker = models.CharField(max_length=255, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"

    @property
    def progress_percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else (100 if self.is_finished else 0)

    @property
    def is_finished(self) -> bool:
        return self.state in {self.State.SUCCEEDED, self.State.FAILED, self.State.CANCELLED}

    @property
    def duration_s(self) -> float | None:
        if not self.started_at:
            return None
        end = self.finished_at or timezone.now()
        return (end - self.started_at).total_seconds()

    def mark_running(self, total: int) -> None:
        """Start an attempt; a job cancelled meanwhile is not started (``JobCancelled``)."""
        now = timezone.now()
        started = (
            Job.objects.filter(pk=self.pk)
            .exclude(state=self.State.CANCELLED)
            .update(
                state=self.State.RUNNING,
                total=total,
                started_at=self.started_at or now,
                running_since=now,
                worker=_current_worker(),
                finished_at=None,
                attempts=F("attempts") + 1,
            )
        )
        self.refresh_from_db()
        if not started:
            raise JobCancelled(f"job #{self.pk} was cancelled before it started")

    def cancel_is_requested(self) -> bool:
        """Whether a researcher asked this job to stop (one query: asked between batches)."""
        requested = Job.objects.filter(pk=self.pk, cancel_requested=True).exists()
        self.cancel_requested = requested
        return requested

    def set_done(self, done: int) -> None:
        """Record progress as an absolute count, so a retried job never double-counts."""
        Job.objects.filter(pk=self.pk).update(done=done)
        self.done = done

    def add_tokens(self, prompt: int, completion: int) -> None:
        Job.objects.filter(pk=self.pk).update(
            prompt_tokens=F("prompt_tokens") + prompt,
            completion_tokens=F("completion_tokens") + completion,
        )
        self.prompt_tokens += prompt
        self.completion_tokens += completion

    def add_error(self, message: str, **details: object) -> None:
        """Append an error; a URL's user and password in its texts are masked (a model
        server's address may carry them)."""
        self.refresh_from_db(fields=["errors"])
        masked = {k: mask_credentials(v) if isinstance(v, str) else v for k, v in details.items()}
        self.errors = [
            *self.errors,
            {"message": mask_credentials(message), "at": timezone.now().isoformat(), **masked},
        ]
        Job.objects.filter(pk=self.pk).update(errors=self.errors)

    def finish(self, state: str, message: str = "") -> None:
        """Record the final state (a job cancelled before it started stays cancelled)."""
        Job.objects.filter(pk=self.pk).exclude(state=self.State.CANCELLED).update(
            state=state, message=mask_credentials(message), finished_at=timezone.now()
        )
        self.refresh_from_db()
