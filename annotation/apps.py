from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Human annotation"

    def ready(self) -> None:
        from annotation.campaign_api import register_api as register_campaign_api
        from annotation.workspace_api import register_api as register_workspace_api

        register_campaign_api()
        register_workspace_api()
