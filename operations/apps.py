from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Running the workbench on a server: health, readiness, metrics, logs, backups."""

    name = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        from operations.job_logging import connect_signals

        connect_signals()
