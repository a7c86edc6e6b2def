"""``Cache-Control: no-store`` on every page a logged-in account sees and on every download, so
no shared cache or browser disk cache keeps unpublished labels; other anonymous pages are left
as their views set them."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import HttpResponse
from django.urls import reverse

from annotation.models import Assignment
from crux_app.cache_headers import NoStoreMiddleware
from tests.annotation.campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db


def no_store(response) -> bool:
    directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= directives


def test_researcher_pages_are_not_stored(researcher_client):
    campaign = make_campaign()
    for url in (
        reverse("collection-list"),
        reverse("job-list"),
        reverse("campaign-list"),
        reverse("campaign-detail", args=[campaign.pk]),
    ):
        response = researcher_client.get(url)
        assert response.status_code == 200, url
        assert no_store(response), url


def test_exports_are_not_stored(researcher_client):
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    for fmt in ("csv", "annotators"):
        response = researcher_client.get(reverse("campaign-export", args=[campaign.pk, fmt]))
        assert response.status_code == 200
        assert response["Content-Disposition"].startswith("attachment")
        assert no_store(response), fmt


def test_an_annotators_workspace_and_items_are_not_stored(client):
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    client.force_login(anna)
    response = client.get(reverse("annotation-workspace", args=[campaign.slug]))
    assert response.status_code == 200 and no_store(response)
    held = Assignment.objects.get(annotator=anna)
    item = client.get(reverse("annotation-item", args=[campaign.slug, held.pk]))
    assert no_store(item)


def test_a_download_is_not_stored_even_without_a_login(rf):
    def download(request):
        response = HttpResponse("a,b\n", content_type="text/csv")
        response["Content-Disposition"] = 'attachment; filename="x.csv"'
        return response

    request = rf.get("/x.csv")
    request.user = AnonymousUser()
    assert no_store(NoStoreMiddleware(download)(request))
    assert not no_store(NoStoreMiddleware(lambda r: HttpResponse("page"))(request))
