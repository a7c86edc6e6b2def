from django.apps import AppConfig


class ScaarConfig(AppConfig):
    name = "evaluation.scaar"
    label = "scaar"
    verbose_name = "SCAAR word contributions"

    def ready(self) -> None:
        from evaluation.scaar.registrations import register

        register()
