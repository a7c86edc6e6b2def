"""Generated-answer pages, mounted at the site root by ``crux_app.urls``."""

from crux_app.jobs.start_view import start_urls
from evaluation.answers.views import AnswersStartView

urlpatterns = [
    *start_urls(
        "collections/<int:collection_pk>/answers/start/", AnswersStartView, "answers-start"
    ),
]
