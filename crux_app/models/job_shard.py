"""One shard of a job: a run of its planned batches that any worker of the job's queue can take.

A job's first task plans its batches and stores them here, cut into shards; every task sent
for the job then claims shards (``SELECT ... FOR UPDATE SKIP LOCKED``, crux_app.jobs.shards)
until none is left. A running shard holds a lease: the worker's name, a token of its own and a
heartbeat refreshed every few seconds. Another worker takes over a shard whose heartbeat is
older than the grace period (``JOB_LEASE_GRACE_SECONDS``).
"""

from django.db import models


class JobShard(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"  # some batch failed every try (retry runs it again)
        CANCELLED = "cancelled", "Cancelled"

    job = models.ForeignKey("crux_app.Job", on_delete=models.CASCADE, related_name="shards")
    index = models.PositiveIntegerField()
    first_batch = models.PositiveIntegerField()  # the job-wide index of its first batch
    # Its batches' items as JSON values (an item's key: its JSON text, see shards.item_key).
    batches = models.JSONField(default=list)
    size = models.PositiveIntegerField(default=0)  # items planned
    todo = models.JSONField(default=list)  # indices (into ``batches``) not done yet
    failed_batches = models.JSONField(default=list)  # job-wide indices that failed every try
    done = models.PositiveIntegerField(default=0)  # items of its batches done
    counts = models.JSONField(default=list)  # what its batches reported, [["judged", 8]]
    notes = models.JSONField(default=list)  # texts its batches reported (an import's summary)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    # The lease: who runs it, the claim's own token, and the heartbeat that keeps it alive.
    worker = models.CharField(max_length=255, blank=True)
    lease_token = models.CharField(max_length=36, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # The worker whose heartbeat stopped before this claim took the shard over.
    stalled_worker = models.CharField(max_length=255, blank=True)
    # When a sweep sent a task to resume it: set while that task waits in the queue (no second
    # one is sent meanwhile, crux_app.jobs.sweep), cleared by the claim that takes the shard.
    resume_sent_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="job_shard_unique_index")
        ]

    def __str__(self) -> str:
        return f"shard {self.index} of job #{self.job_id}"

    @property
    def is_finished(self) -> bool:
        return self.state in {self.State.SUCCEEDED, self.State.FAILED, self.State.CANCELLED}
