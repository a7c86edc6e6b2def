"""Collections list, collection page and topic page (researchers only)."""

from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views import View

from crux_app.access import collection_or_404, topic_or_404
from crux_app.judge_choice import JudgeParamForm, page_judge
from crux_app.list_paging import list_form, list_page, refused
from crux_app.models import Collection
from crux_app.queries import JUDGES, collection_page, counted, topic_page
from crux_app.roles import ResearcherRequiredMixin
from crux_app.topic_lookup import TopicLookupForm, topic_matches
from crux_app.topic_summaries import summaries_for


class CollectionListView(ResearcherRequiredMixin, View):
    """The collections, a page at a time (``q`` searches names and descriptions)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        form = list_form(request.GET)
        if bad := refused(form):
            return bad
        collections = Collection.objects.visible_to(request).select_related("workspace")
        collections = collections.order_by("name")
        listing = list_page(form, collections, search=search_collections)
        # Counted for the shown rows only, each under its data version.
        context = {"collections": [counted(c) for c in listing.rows], "listing": listing}
        return render(request, "crux_app/collection_list.html", context)


def search_collections(collections: QuerySet, text: str) -> QuerySet:
    """Collections whose name or description contains ``text`` (any case)."""
    return collections.filter(Q(name__icontains=text) | Q(description__icontains=text))


class CollectionDetailView(ResearcherRequiredMixin, View):
    """A collection's counts, a page of its topics and of its judges, its runs and jobs."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        # The topic list's fields carry no prefix (?q=, ?page=): it is the page's main list.
        topics, judges = list_form(request.GET), list_form(request.GET, JUDGES)
        if bad := refused(topics, judges):
            return bad
        collection = collection_or_404(request, pk=pk)
        page = collection_page(collection, topics, judges)
        return render(request, "crux_app/collection_detail.html", {"page": page})


class TopicDetailView(ResearcherRequiredMixin, View):
    def get(self, request: HttpRequest, collection_pk: int, pk: int) -> HttpResponse:
        topic = topic_or_404(request, collection_pk, pk)
        judge = JudgeParamForm(request.GET)
        if not judge.is_valid():
            return HttpResponse(
                judge.errors.as_text(), status=400, content_type="text/plain; charset=utf-8"
            )
        judge_id = page_judge(request.session, collection_pk, judge)
        context = {"page": topic_page(topic), "summaries": summaries_for(topic, judge_id)}
        return render(request, "crux_app/topic_detail.html", context)


class TopicSearchView(ResearcherRequiredMixin, View):
    """``?topic=<text>``: the ``<option>``s of at most ``MAX_MATCHES`` matching topics, for a
    topic field's datalist."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        form = TopicLookupForm(request.GET)
        if bad := refused(form):
            return bad
        collection = collection_or_404(request, pk=pk)
        topics = topic_matches(collection, form.cleaned_data["topic"])
        return render(request, "crux_app/_topic_matches.html", {"topics": topics})


urlpatterns = [
    path("collections/", CollectionListView.as_view(), name="collection-list"),
    path("collections/<int:pk>/", CollectionDetailView.as_view(), name="collection-detail"),
    path("collections/<int:pk>/topics/search/", TopicSearchView.as_view(), name="topic-search"),
    path(
        "collections/<int:collection_pk>/topics/<int:pk>/",
        TopicDetailView.as_view(),
        name="topic-detail",
    ),
]
