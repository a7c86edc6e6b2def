from django.apps import AppConfig


class RetevalConfig(AppConfig):
    name = "evaluation.reteval"
    label = "reteval"
    verbose_name = "LLM-retEval retriever evaluation"

    def ready(self) -> None:
        from evaluation.reteval.registrations import register

        register()
