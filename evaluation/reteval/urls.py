"""LLM-retEval retriever evaluation pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from crux_app.jobs.start_view import start_urls
from evaluation.reteval.views import (
    FailureCampaignView,
    RetEvalCollectionView,
    RetEvalStartView,
    RetEvalTopicView,
)

urlpatterns = [
    path(
        "collections/<int:collection_pk>/reteval/",
        RetEvalCollectionView.as_view(),
        name="reteval-collection",
    ),
    *start_urls(
        "collections/<int:collection_pk>/reteval/start/", RetEvalStartView, "reteval-start"
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/reteval/",
        RetEvalTopicView.as_view(),
        name="reteval-topic",
    ),
    path(
        "collections/<int:collection_pk>/reteval/campaign/",
        FailureCampaignView.as_view(),
        name="reteval-campaign",
    ),
]
