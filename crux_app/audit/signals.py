"""Connects the audit trail (from crux_app's ready()): triggers after migrate, the context on
new connections and around jobs' tasks."""

from __future__ import annotations

from celery.signals import task_postrun, task_prerun
from django.apps import apps
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate

from .context import on_connection_created, on_task_postrun, on_task_prerun
from .triggers import install_triggers


def connect_signals() -> None:
    """Install the triggers after each migrate; set the acting context where it starts."""
    post_migrate.connect(
        install_triggers, sender=apps.get_app_config("crux_app"), dispatch_uid="audit_triggers"
    )
    connection_created.connect(on_connection_created, dispatch_uid="audit_context")
    task_prerun.connect(on_task_prerun, dispatch_uid="audit_task_prerun", weak=False)
    task_postrun.connect(on_task_postrun, dispatch_uid="audit_task_postrun", weak=False)
