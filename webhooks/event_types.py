"""The events a webhook endpoint may subscribe to (stdlib only: forms, models and docs share it)."""

JOB_SUCCEEDED = "job.succeeded"
JOB_FAILED = "job.failed"
IMPORT_FAILED = "import.failed"
CAMPAIGN_COMPLETED = "campaign.completed"
CAMPAIGN_LABEL_QUOTA_REACHED = "campaign.label_quota_reached"
# Sent only by a researcher's "send test event", to one endpoint; never subscribed to.
TEST = "webhook.test"

EVENT_CHOICES: tuple[tuple[str, str], ...] = (
    (JOB_SUCCEEDED, "job.succeeded: a job finished without errors"),
    (JOB_FAILED, "job.failed: a job failed (any kind, imports included)"),
    (IMPORT_FAILED, "import.failed: an import job failed"),
    (CAMPAIGN_COMPLETED, "campaign.completed: every item of a campaign has its labels"),
    (
        CAMPAIGN_LABEL_QUOTA_REACHED,
        "campaign.label_quota_reached: a campaign has items x overlap labels",
    ),
)
SUBSCRIBABLE = tuple(name for name, _ in EVENT_CHOICES)
