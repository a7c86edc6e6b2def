"""The leaderboard page, mounted at the site root by ``crux_app.urls``."""

from evaluation.leaderboard.views import urlpatterns

__all__ = ["urlpatterns"]
