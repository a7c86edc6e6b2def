from django.apps import AppConfig


class CruxAppConfig(AppConfig):
    name = "crux_app"
    verbose_name = "CRUX workbench"

    def ready(self) -> None:
        from crux_app.data_version import connect_signals
        from crux_app.dataio.import_job import KIND, TASK_NAME
        from crux_app.jobs.catalog import JobKind, collection_page, register_kind

        register_kind(
            JobKind(
                name=KIND,
                label="Import data",
                task_name=TASK_NAME,
                description=(
                    "A file or folder uploaded from the upload page, imported in one "
                    "transaction by the format's importer (the same as the import commands)."
                ),
                results_url=collection_page("collection-detail"),
                results_label="Collection page",
            )
        )
        connect_signals()
