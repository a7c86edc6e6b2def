from crux_app.method_config import Declaration, PluginConfig


class AnnotationConfig(PluginConfig):
    """Human annotation; it declares the four built-in task types through the same hook a
    method uses for its own (``Declaration.annotation_task_types``)."""

    name = "annotation"
    verbose_name = "Human annotation"

    def declare(self) -> Declaration:
        from annotation.builtin_task_types import BUILTIN_TASK_TYPES
        from crux_app.page_links import PageLink

        return Declaration(
            annotation_task_types=BUILTIN_TASK_TYPES,
            page_links=(
                PageLink(
                    "label-aggregation",
                    "Aggregate crowd labels…",
                    "label-aggregation",
                    "agreement",
                    title="Combine people's labels with a crowd model into a judge",
                    collection_url=True,
                ),
            ),
        )

    def ready(self) -> None:
        from annotation.campaigns.api import register_api as register_campaign_api
        from annotation.crowd.api import register_api as register_aggregation_api
        from annotation.review.api import register_api as register_review_api
        from annotation.workspace.api import register_api as register_workspace_api

        super().ready()
        register_campaign_api()
        register_workspace_api()
        register_review_api()
        register_aggregation_api()
