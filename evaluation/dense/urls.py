"""DENSE uncertainty pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from crux_app.jobs.start_view import start_urls
from evaluation.dense.views import (
    CollectionDenseView,
    DenseLabelView,
    DenseStartView,
    TopicDenseView,
)

urlpatterns = [
    *start_urls("collections/<int:collection_pk>/dense/start/", DenseStartView, "dense-start"),
    path("collections/<int:pk>/dense/", CollectionDenseView.as_view(), name="dense-collection"),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/dense/",
        TopicDenseView.as_view(),
        name="dense-topic",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/dense/label/",
        DenseLabelView.as_view(),
        name="dense-topic-label",
    ),
]
