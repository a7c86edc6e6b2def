"""``/favicon.ico`` is a real icon on every page (it was a 404): base.html links the static
icon, and the path browsers ask for by default redirects to it."""

import pytest
from django.templatetags.static import static
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_favicon_path_redirects_to_the_static_icon_for_anyone(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"] == static("favicon.ico")
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    body = b"".join(icon.streaming_content) if icon.streaming else icon.content
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert 0 < len(body) < 5_000


def test_every_page_links_the_icon(client, researcher_client):
    login = client.get(reverse("login")).content.decode()
    link = f'<link rel="icon" href="{static("favicon.ico")}"'
    assert link in login
    assert link in researcher_client.get(reverse("collection-list")).content.decode()
