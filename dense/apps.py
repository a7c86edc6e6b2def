from django.apps import AppConfig


class DenseConfig(AppConfig):
    name = "dense"
    verbose_name = "DENSE uncertainty"

    def ready(self) -> None:
        from dense.services.agreement_sources import register_sources
        from dense.services.leaderboard_column import COLUMN
        from evaluation.services.leaderboard_columns import register_column

        register_column(COLUMN)
        register_sources()
