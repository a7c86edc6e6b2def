"""The leaderboard page, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from evaluation.leaderboard.views import LeaderboardView

urlpatterns = [
    path("collections/<int:pk>/leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
]
