from django.apps import AppConfig


class SeperConfig(AppConfig):
    name = "evaluation.seper"
    label = "seper"
    verbose_name = "SePer utility"

    def ready(self) -> None:
        from evaluation.seper.registrations import register

        register()
