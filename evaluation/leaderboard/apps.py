"""The leaderboard's declaration: its link on the collection page and its API endpoint."""

from crux_app.method_config import Declaration, PluginConfig


class LeaderboardConfig(PluginConfig):
    name = "evaluation.leaderboard"
    label = "leaderboard"
    verbose_name = "Run leaderboard"

    def declare(self) -> Declaration:
        from crux_app.page_links import PageLink
        from evaluation.leaderboard.api import api_endpoints

        return Declaration(
            page_links=(PageLink("leaderboard", "Leaderboard", "leaderboard", "collection"),),
            api_endpoints=api_endpoints(),
        )
