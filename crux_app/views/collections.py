"""Collections list, collection page and topic page (researchers only)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path
from django.views import View

from crux_app.models import Collection, Topic
from crux_app.queries import collection_page, topic_page
from crux_app.roles import ResearcherRequiredMixin
from crux_app.topic_summaries import summaries_for


class CollectionListView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest) -> HttpResponse:
        collections = Collection.objects.with_counts()
        return render(request, "crux_app/collection_list.html", {"collections": collections})


class CollectionDetailView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = get_object_or_404(Collection.objects.with_counts(), pk=pk)
        return render(
            request, "crux_app/collection_detail.html", {"page": collection_page(collection)}
        )


class TopicDetailView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = get_object_or_404(
            Topic.objects.select_related("collection"), pk=pk, collection_id=collection_pk
        )
        context = {"page": topic_page(topic), "summaries": summaries_for(topic)}
        return render(request, "crux_app/topic_detail.html", context)


urlpatterns = [
    path("collections/", CollectionListView.as_view(), name="collection-list"),
    path("collections/<int:pk>/", CollectionDetailView.as_view(), name="collection-detail"),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/",
        TopicDetailView.as_view(),
        name="topic-detail",
    ),
]
