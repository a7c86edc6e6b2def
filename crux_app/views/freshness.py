"""The freshness door: the banner of a page whose data a job or a campaign may still change asks
it every few seconds (``crux_app.freshness``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils.cache import add_never_cache_headers
from django.views import View

from crux_app.access import collection_or_404
from crux_app.freshness import FreshnessQuery, freshness
from crux_app.models import Topic
from crux_app.roles import ResearcherRequiredMixin

TEMPLATE = "_partials/data_freshness_banner.html"


class FreshnessView(ResearcherRequiredMixin, View):
    """GET page, area, since, at (topic): the banner again, with a refresh button once the
    data moved since ``since``; bad parameters: 400 naming them."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        query = FreshnessQuery(request.GET)
        if not query.is_valid():
            return HttpResponse(
                query.errors.as_text(), status=400, content_type="text/plain; charset=utf-8"
            )
        data = query.cleaned_data
        topic_id = data["topic"]
        if topic_id is not None and not Topic.objects.filter(pk=topic_id, collection=collection):
            raise Http404("No such topic in this collection.")
        banner = freshness(
            data["page"],
            collection,
            data["area"],
            topic_id,
            shown_version=data["since"],
            shown_at=data["at"],
        )
        # The page the banner sits on (htmx names it), fetched again on refresh.
        page_url = request.htmx.current_url_abs_path if request.htmx else None
        context = {"freshness": banner, "poll_url": banner.url(pk), "page_url": page_url}
        response = render(request, TEMPLATE, context)
        add_never_cache_headers(response)
        return response


urlpatterns = [
    path("collections/<int:pk>/freshness/", FreshnessView.as_view(), name="data-freshness"),
]
