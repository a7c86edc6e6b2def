from crux_app.method_config import Declaration, PluginConfig


def _archive_download(job) -> str | None:
    """The archive's download once written (the job page's results link)."""
    from django.urls import reverse

    from api.models import ExportFile

    if not ExportFile.objects.filter(job=job).exists():
        return None
    return reverse("api-export-download", args=[job.pk])


class ApiConfig(PluginConfig):
    """The REST API (``/api/v1/``): tokens, routing, schema; methods mount their endpoints
    through ``api.registry``. It declares its own job kind: asynchronous exports."""

    name = "api"
    label = "api"
    verbose_name = "REST API"
    default_auto_field = "django.db.models.BigAutoField"

    def declare(self) -> Declaration:
        from api import collection_archive_job as archive
        from api.export_job import KIND
        from crux_app.jobs.catalog import JobKind
        from crux_app.page_links import PageLink

        return Declaration(
            page_links=(
                PageLink(
                    "collection-archive",
                    "Export as archive",
                    "collection-archive",
                    "collection",
                    title="Everything about this collection in one .tar.gz "
                    "(manage.py export_collection); import it with import_collection",
                    post_fields={"archive": "1"},
                ),
            ),
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="Export",
                    queue="cpu",
                    description="Write an export's file for its download link "
                    "(POST /api/v1/exports/).",
                    unit="files",
                ),
                JobKind(
                    name=archive.KIND,
                    label="Collection archive",
                    queue="cpu",
                    description="Write the collection's archive (export_collection) for its "
                    "download link.",
                    results_url=_archive_download,
                    results_label="Download the archive",
                    unit="files",
                ),
            ),
        )

    def ready(self) -> None:
        from api import schema  # noqa: F401  (registers the Bearer scheme with drf-spectacular)
        from api.export_kinds import register_shared_exports

        super().ready()
        register_shared_exports()
