"""The webhooks' Celery tasks, on their own queue (``settings.WEBHOOKS_QUEUE``, routed by
settings.CELERY_TASK_ROUTES): one attempt of a delivery, and the sweep that Celery beat sends
every ``WEBHOOKS_SWEEP_SECONDS`` (settings.CELERY_BEAT_SCHEDULE)."""

from celery import shared_task

from .delivery import attempt_delivery
from .job_events import sweep

TASK_NAME = "webhooks.deliver"
SWEEP_TASK_NAME = "webhooks.sweep"


# max_retries=None: Celery never stops the series (its default stops after 3 retries, 4
# attempts); the attempts are counted in the database (Delivery.attempts, per series) and
# ``attempt_delivery`` ends the series after WEBHOOKS_MAX_ATTEMPTS.
@shared_task(name=TASK_NAME, bind=True, ignore_result=True, max_retries=None)
def deliver_webhook(self, delivery_id: int) -> None:
    """One attempt of a delivery; a failed one is tried again after its backoff."""
    outcome = attempt_delivery(delivery_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)


@shared_task(name=SWEEP_TASK_NAME, ignore_result=True)
def sweep_webhooks() -> int:
    """Emit the events of jobs finished unseen and queue stalled deliveries again."""
    return sweep()
