"""``manage.py send_webhook_events``: the worker's sweep from the command line (cron, or after
jobs a command ran without a worker)."""

from django.core.management.base import BaseCommand

from webhooks.job_events import sweep


class Command(BaseCommand):
    help = (
        "Emit the webhook events of jobs that finished unseen (last 24 hours) and queue "
        "stalled deliveries again."
    )

    def handle(self, *args, **options) -> None:
        emitted = sweep()
        self.stdout.write(f"{emitted} job event(s) emitted")
