"""CRUX pages, mounted at the site root by ``crux_app.urls``: the judging start page, a topic's
coverage matrix and its cell panel, and the disagreements page."""

from django.urls import path

from evaluation.crux.matrix.views import MatrixCellView, TopicMatrixView
from evaluation.crux.views import DisagreementsView, JudgeCountView, JudgeStartView

urlpatterns = [
    path(
        "collections/<int:collection_pk>/crux/start/", JudgeStartView.as_view(), name="crux-start"
    ),
    path(
        "collections/<int:collection_pk>/crux/start/count/",
        JudgeCountView.as_view(),
        name="crux-start-count",
    ),
    path(
        "collections/<int:pk>/crux/disagreements/",
        DisagreementsView.as_view(),
        name="crux-disagreements",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/crux/",
        TopicMatrixView.as_view(),
        name="crux-topic",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/crux/cell/",
        MatrixCellView.as_view(),
        name="crux-topic-cell",
    ),
]
