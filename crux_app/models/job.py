"""Every Celery job the app starts: kind, parameters, state, progress, errors, timings."""

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from crux_app.access_scope import as_access
from crux_app.jobs.usage import UsageByRole, prompt_and_completion
from crux_app.url_credentials import mask_credentials

from .collection import Collection
from .job_usage import add_model_usage


class JobCancelled(Exception):
    """The job was cancelled before a worker started it: nothing is to be done."""


def _current_worker() -> str:
    """Hostname of the Celery worker running this code ("" outside a worker's task)."""
    from celery import current_task

    return getattr(getattr(current_task, "request", None), "hostname", None) or ""


class JobQuerySet(models.QuerySet):
    def visible_to(self, who: object, *, write: bool = False) -> "JobQuerySet":
        """The jobs ``who`` (an account, a request or a ``crux_app.access.Access``) may see, or
        with ``write`` change: those of its collections (``Collection.objects.visible_to``);
        a job of no collection (an export, a model download) is its creator's, or a
        superuser's."""
        access = as_access(who)
        user = access.user
        if not user.is_authenticated or (write and access.read_only):
            return self.none()
        own = Q(collection__isnull=True)
        if not user.is_superuser:
            own &= Q(created_by=user.pk)
        return self.filter(
            Q(collection__in=Collection.objects.visible_to(access, write=write)) | own
        )

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
    # Items done when the current attempt started (a retry keeps what earlier attempts did):
    # the estimate counts only this attempt's items against its clock.
    done_before_attempt = models.PositiveIntegerField(default=0)
    # The Celery worker (hostname) running the current attempt: whose slot it holds.
    worker = models.CharField(max_length=255, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # What the first planning left out ("already judged 5"): it ends the final message.
    plan_note = models.TextField(blank=True)
    # Set while the job's task waits in the outbox: the broker did not take it when the job was
    # started or retried; the workers' sweep sends it once the broker answers.
    outbox_since = models.DateTimeField(null=True, blank=True)
    # Set by a researcher's "run next" while the job waits on its queue (pending, or a stalled
    # shard waiting to resume): the next task a worker of the queue takes runs it first
    # (crux_app.jobs.line); cleared when a worker takes the job.
    moved_up_at = models.DateTimeField(null=True, blank=True)

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
        """Start an attempt; a job cancelled meanwhile is not started (``JobCancelled``).

        Saved through the model (post_save sees every state change), under the row's lock."""
        with transaction.atomic():
            locked = Job.objects.select_for_update().get(pk=self.pk)
            if locked.state == self.State.CANCELLED:
                raise JobCancelled(f"job #{self.pk} was cancelled before it started")
            locked.start_attempt(total=total)
        self.refresh_from_db()

    def start_attempt(self, total: int | None = None) -> None:
        """Save this (locked) row as running a new attempt."""
        now = timezone.now()
        self.state = self.State.RUNNING
        if total is not None:
            self.total = total
        self.started_at = self.started_at or now
        self.running_since = now
        self.done_before_attempt = self.done
        self.worker = _current_worker()
        self.finished_at = None
        self.outbox_since = None
        self.attempts += 1
        self.save(
            update_fields=[
                *("state", "total", "started_at", "running_since", "done_before_attempt"),
                *("worker", "finished_at", "outbox_since", "attempts"),
            ]
        )

    def cancel_is_requested(self) -> bool:
        """Whether a researcher asked this job to stop (one query: asked between batches)."""
        requested = Job.objects.filter(pk=self.pk, cancel_requested=True).exists()
        self.cancel_requested = requested
        return requested

    def set_done(self, done: int) -> None:
        """Record progress as an absolute count, so a retried job never double-counts."""
        Job.objects.filter(pk=self.pk).update(done=done)
        self.done = done

    def add_usage(self, usage: UsageByRole) -> None:
        """Add model calls' usage: its tokens to the job's totals, every role's to its row."""
        prompt, completion = prompt_and_completion(usage)
        with transaction.atomic():
            if prompt or completion:
                Job.objects.filter(pk=self.pk).update(
                    prompt_tokens=F("prompt_tokens") + prompt,
                    completion_tokens=F("completion_tokens") + completion,
                )
            add_model_usage(self.pk, usage)
        self.prompt_tokens += prompt
        self.completion_tokens += completion

    def add_error(self, message: str, **details: object) -> None:
        """Append an error; a URL's user and password in its texts are masked (a model
        server's address may carry them)."""
        masked = {k: mask_credentials(v) if isinstance(v, str) else v for k, v in details.items()}
        error = {"message": mask_credentials(message), "at": timezone.now().isoformat(), **masked}
        # Under the row's lock: workers running other shards of the job append theirs too.
        with transaction.atomic():
            locked = Job.objects.select_for_update().filter(pk=self.pk)
            errors = locked.values_list("errors", flat=True).get()
            self.errors = [*errors, error]
            Job.objects.filter(pk=self.pk).update(errors=self.errors)

    def finish(self, state: str, message: str = "") -> None:
        """Record the final state (a job cancelled before it started stays cancelled)."""
        with transaction.atomic():
            locked = Job.objects.select_for_update().get(pk=self.pk)
            if locked.state != self.State.CANCELLED:
                locked.end(state, message)
        self.refresh_from_db()

    def end(self, state: str, message: str = "") -> None:
        """Save this (locked) row finished in ``state`` with ``message``."""
        self.state = state
        self.message = mask_credentials(message)
        self.finished_at = timezone.now()
        self.save(update_fields=["state", "message", "finished_at"])
