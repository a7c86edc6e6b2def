"""The nugget pages, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from evaluation.nuggets.views import NuggetCollectionView, NuggetStartView, NuggetTopicView

urlpatterns = [
    path(
        "collections/<int:collection_pk>/nuggets/",
        NuggetCollectionView.as_view(),
        name="nuggets-collection",
    ),
    path(
        "collections/<int:collection_pk>/nuggets/start/",
        NuggetStartView.as_view(),
        name="nuggets-start",
    ),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/nuggets/",
        NuggetTopicView.as_view(),
        name="nuggets-topic",
    ),
]
