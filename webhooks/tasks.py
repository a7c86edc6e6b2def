"""The webhooks' delivery task, on their own queue (``settings.WEBHOOKS_QUEUE``, routed by
settings.CELERY_TASK_ROUTES): one attempt of a delivery. The sweep that Celery beat sends is
``webhooks.job_events.sweep_webhooks`` (beside the sweep it runs, so that this module, which
``events`` sends through, imports nothing that imports ``events``)."""

from celery import shared_task

from .delivery import attempt_delivery

TASK_NAME = "webhooks.deliver"


# max_retries=None: Celery never stops the series (its default stops after 3 retries, 4
# attempts); the attempts are counted in the database (Delivery.attempts, per series) and
# ``attempt_delivery`` ends the series after WEBHOOKS_MAX_ATTEMPTS.
@shared_task(name=TASK_NAME, bind=True, ignore_result=True, max_retries=None)
def deliver_webhook(self, delivery_id: int) -> None:
    """One attempt of a delivery; a failed one is tried again after its backoff."""
    outcome = attempt_delivery(delivery_id)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in)
