"""SCAAR word contributions pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from crux_app.jobs.start_view import start_urls
from evaluation.scaar.views import AnswerScaarView, CollectionScaarView, ScaarStartView

urlpatterns = [
    path(
        "collections/<int:collection_pk>/scaar/",
        CollectionScaarView.as_view(),
        name="scaar-collection",
    ),
    *start_urls("collections/<int:collection_pk>/scaar/start/", ScaarStartView, "scaar-start"),
    path(
        "collections/<int:collection_pk>/scaar/answers/<int:pk>/",
        AnswerScaarView.as_view(),
        name="scaar-answer",
    ),
]
