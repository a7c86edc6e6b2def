from django.apps import AppConfig


class RetevalConfig(AppConfig):
    name = "reteval"
    verbose_name = "LLM-retEval retriever evaluation"

    def ready(self) -> None:
        from reteval.agreement_source import register_failure_category_source
        from reteval.leaderboard_column import register_reteval_column

        register_reteval_column()
        register_failure_category_source()
