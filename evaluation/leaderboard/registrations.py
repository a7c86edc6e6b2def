"""The leaderboard's link on the collection page (called from ``LeaderboardConfig.ready``)."""

from crux_app.page_links import PageLink, register_link


def register() -> None:
    from evaluation.leaderboard.api import register_api

    register_api()
    register_link(PageLink("leaderboard", "Leaderboard", "leaderboard", "collection", 10))
