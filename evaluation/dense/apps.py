from django.apps import AppConfig


class DenseConfig(AppConfig):
    name = "evaluation.dense"
    label = "dense"
    verbose_name = "DENSE uncertainty"

    def ready(self) -> None:
        from evaluation.dense.registrations import register

        register()
