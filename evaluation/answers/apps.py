from django.apps import AppConfig


class AnswersConfig(AppConfig):
    name = "evaluation.answers"
    label = "answers"
    verbose_name = "Generated answers"

    def ready(self) -> None:
        from evaluation.answers.registrations import register

        register()
