"""The nugget pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from crux_app.jobs.start_view import start_urls
from evaluation.nuggets.views import NuggetCollectionView, NuggetStartView, NuggetTopicView

urlpatterns = [
    path(
        "collections/<int:collection_pk>/nuggets/",
        NuggetCollectionView.as_view(),
        name="nuggets-collection",
    ),
    *start_urls("collections/<int:collection_pk>/nuggets/start/", NuggetStartView, "nuggets-start"),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/nuggets/",
        NuggetTopicView.as_view(),
        name="nuggets-topic",
    ),
]
