from django.apps import AppConfig


class AgreementConfig(AppConfig):
    name = "evaluation.agreement"
    label = "agreement"
    verbose_name = "Human vs machine agreement"

    def ready(self) -> None:
        from evaluation.agreement.registrations import register

        register()
