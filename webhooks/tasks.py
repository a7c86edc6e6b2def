"""The webhooks' Celery task. It is no job kind's, so it runs on the default ``cpu`` queue
(settings.CELERY_TASK_ROUTES)."""

from celery import shared_task

from .delivery import attempt_delivery

TASK_NAME = "webhooks.deliver"


@shared_task(name=TASK_NAME, bind=True, ignore_result=True)
def deliver_webhook(self, delivery_id: int) -> None:
    """One attempt of a delivery; a failed one is tried again after its backoff."""
    outcome = attempt_delivery(delivery_id)
    if outcome.retry_in is not None:
        # The attempts are counted in the database (Delivery.attempts), not by Celery.
        raise self.retry(countdown=outcome.retry_in, max_retries=None)
