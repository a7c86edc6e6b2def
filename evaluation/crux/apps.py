from django.apps import AppConfig


class CruxConfig(AppConfig):
    name = "evaluation.crux"
    label = "crux"
    verbose_name = "CRUX judging and coverage"

    def ready(self) -> None:
        from evaluation.crux.registrations import register

        register()
