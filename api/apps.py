from crux_app.method_config import Declaration, PluginConfig


class ApiConfig(PluginConfig):
    """The REST API (``/api/v1/``): tokens, routing, schema; methods mount their endpoints
    through ``api.registry``. It declares its own job kind: asynchronous exports."""

    name = "api"
    label = "api"
    verbose_name = "REST API"
    default_auto_field = "django.db.models.BigAutoField"

    def declare(self) -> Declaration:
        from api.export_job import KIND
        from crux_app.jobs.catalog import JobKind

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="Export",
                    queue="cpu",
                    description="Write an export's file for its download link "
                    "(POST /api/v1/exports/).",
                    unit="files",
                ),
            ),
        )

    def ready(self) -> None:
        from api import schema  # noqa: F401  (registers the Bearer scheme with drf-spectacular)
        from api.export_kinds import register_shared_exports

        super().ready()
        register_shared_exports()
