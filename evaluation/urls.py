"""Evaluation pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from evaluation.views import agreement as agreement_views
from evaluation.views import leaderboard
from evaluation.views.judging import JudgeStartView
from evaluation.views.matrix import MatrixCellView, TopicMatrixView
from evaluation.views.seper import (
    ClusterEquivalenceView,
    ResponseEquivalenceView,
    SeperCorrelationsView,
    SeperStartView,
    TopicSeperView,
)

urlpatterns = [
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/matrix/",
        TopicMatrixView.as_view(),
        name="topic-matrix",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/matrix/cell/",
        MatrixCellView.as_view(),
        name="topic-matrix-cell",
    ),
    path("collections/<int:collection_pk>/judge/", JudgeStartView.as_view(), name="judge-start"),
    path("collections/<int:collection_pk>/seper/", SeperStartView.as_view(), name="seper-start"),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/seper/",
        TopicSeperView.as_view(),
        name="topic-seper",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/seper/equivalence/",
        ClusterEquivalenceView.as_view(),
        name="topic-seper-equivalence",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/seper/response-equivalence/",
        ResponseEquivalenceView.as_view(),
        name="topic-seper-response-equivalence",
    ),
    path(
        "collections/<int:collection_pk>/seper/correlations/",
        SeperCorrelationsView.as_view(),
        name="seper-correlations",
    ),
    *leaderboard.urlpatterns,
    *agreement_views.urlpatterns,
]
