from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Machine evaluation"

    def ready(self) -> None:
        from evaluation.seper_registrations import register_seper

        register_seper()
