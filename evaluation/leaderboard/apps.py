from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "evaluation.leaderboard"
    label = "leaderboard"
    verbose_name = "Run leaderboard"

    def ready(self) -> None:
        from evaluation.leaderboard.registrations import register

        register()
