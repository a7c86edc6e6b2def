"""Generated-answer pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from evaluation.answers.views import AnswersStartView

urlpatterns = [
    path(
        "collections/<int:collection_pk>/answers/start/",
        AnswersStartView.as_view(),
        name="answers-start",
    ),
]
