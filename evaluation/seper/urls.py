"""SePer pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from crux_app.jobs.start_view import start_urls
from evaluation.seper.views import (
    ClusterEquivalenceView,
    ResponseEquivalenceView,
    SeperCorrelationsView,
    SeperStartView,
    TopicSeperView,
)

urlpatterns = [
    path(
        "collections/<int:collection_pk>/seper/",
        SeperCorrelationsView.as_view(),
        name="seper-collection",
    ),
    *start_urls("collections/<int:collection_pk>/seper/start/", SeperStartView, "seper-start"),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/seper/",
        TopicSeperView.as_view(),
        name="seper-topic",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/seper/equivalence/",
        ClusterEquivalenceView.as_view(),
        name="seper-topic-equivalence",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/seper/response-equivalence/",
        ResponseEquivalenceView.as_view(),
        name="seper-topic-response-equivalence",
    ),
]
