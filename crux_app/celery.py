"""The Celery application: queue `gpu` for model work, `cpu` for everything else."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crux_app.settings")

app = Celery("crux_app")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
