"""A job's model calls and tokens per model role (generator, judge, NLI, embedder), summed over
its batches and attempts. One row per (job, role) that made a call; the job page lists them and
``/metrics`` sums them by job kind and role."""

from __future__ import annotations

from django.db import connection, models

from crux_app.jobs.usage import FIGURES, UsageByRole


class JobModelUsage(models.Model):
    job = models.ForeignKey("crux_app.Job", on_delete=models.CASCADE, related_name="model_usage")
    # A word of ``evaluation.backends.token_usage.ROLES`` (kept open here: floor 1 names no
    # backend), or "other" for a call made outside any role (a capability probe).
    role = models.CharField(max_length=32)
    calls = models.PositiveBigIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    forward_tokens = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["job", "role"]
        constraints = [
            models.UniqueConstraint(fields=["job", "role"], name="unique_job_model_usage_role")
        ]

    def __str__(self) -> str:
        return f"job #{self.job_id} {self.role}: {self.calls} calls"


def add_model_usage(job_id: int, usage: UsageByRole) -> None:
    """Add ``usage`` to the job's rows: one ``INSERT ... ON CONFLICT`` adding to what is stored
    (workers running other shards of the job add theirs at the same time)."""
    rows = [(role, u) for role, u in sorted(usage.items()) if u]
    if not rows:
        return
    table = connection.ops.quote_name(JobModelUsage._meta.db_table)
    columns = ", ".join(FIGURES)
    adds = ", ".join(f"{f} = {table}.{f} + EXCLUDED.{f}" for f in FIGURES)
    values = ", ".join(["(%s, %s, " + ", ".join(["%s"] * len(FIGURES)) + ")"] * len(rows))
    params: list[object] = []
    for role, u in rows:
        params += [job_id, role, *(getattr(u, f) for f in FIGURES)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (job_id, role, {columns}) VALUES {values} "
            f"ON CONFLICT (job_id, role) DO UPDATE SET {adds}",
            params,
        )
