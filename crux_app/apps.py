from collections.abc import Mapping
from typing import Any

from crux_app.method_config import Declaration, PluginConfig


def _describe_import(params: Mapping[str, Any]) -> str:
    """ "crux_labeling: demo.zip" (the format and the input's name)."""
    return f"{params['format']}: {params.get('label') or params['source']}"


class CruxAppConfig(PluginConfig):
    """The shared data model and job runner; it declares its own job kind, the import."""

    name = "crux_app"
    verbose_name = "CRUX workbench"

    def declare(self) -> Declaration:
        from crux_app.dataio.imports.job import KIND
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="Import data",
                    queue="cpu",
                    description=(
                        "A file or folder uploaded from the upload page, imported in one "
                        "transaction by the format's importer (the same as the import commands)."
                    ),
                    results_url=collection_page("collection-detail"),
                    results_label="Collection page",
                    feeds=(LEADERBOARD, AGREEMENT),
                    unit="files",
                    describe=_describe_import,
                ),
            ),
        )

    def ready(self) -> None:
        from crux_app.audit.signals import connect_signals as connect_audit_signals
        from crux_app.data_version import connect_signals
        from crux_app.jobs.worker_beat import connect_signals as connect_worker_signals

        super().ready()
        connect_signals()
        connect_audit_signals()  # the audit trail's triggers and acting context
        # Workers report which queues they serve and sweep the jobs (only workers send these).
        connect_worker_signals()
