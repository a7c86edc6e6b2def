"""Where each role lands: the site root and the login page lead researchers to the collections
and annotators to their campaigns; the 403 and 404 pages are the site's pages, with its
navigation and a link to the role's home."""

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from crux_app.roles import RESEARCHER, add_role

from .campaign_data import make_annotator


def log_in_from_the_root(client: Client, username: str, password: str) -> str:
    """Open ``/`` anonymously, follow it to the login form, log in; where it ends up."""
    response = client.get("/")
    assert response.status_code == 302
    login_url = response.url
    assert login_url.startswith(reverse("login"))
    page = client.get(login_url)
    assert page.status_code == 200
    response = client.post(
        login_url,
        {"username": username, "password": password, "next": page.context["next"]},
        follow=True,
    )
    return response.redirect_chain[-1][0]


def test_an_annotator_who_logs_in_from_the_root_lands_on_their_campaigns(db, client):
    make_annotator("anna", password="annotate-pass-1")
    assert log_in_from_the_root(client, "anna", "annotate-pass-1") == reverse("annotation-home")
    assert client.get("/").url == reverse("annotation-home")


def test_a_researcher_who_logs_in_from_the_root_lands_on_the_collections(db, client):
    rita = get_user_model().objects.create_user("rita", password="research-pass-1")
    add_role(rita, RESEARCHER)
    assert log_in_from_the_root(client, "rita", "research-pass-1") == reverse("collection-list")


def test_a_login_without_next_goes_to_the_roles_home(db, client):
    make_annotator("anna", password="annotate-pass-1")
    response = client.post(
        reverse("login"), {"username": "anna", "password": "annotate-pass-1"}, follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("annotation-home")


def test_a_researcher_page_gives_an_annotator_the_sites_403_with_a_way_home(db, client):
    client.force_login(make_annotator("anna"))
    response = client.get(reverse("collection-list"))
    assert response.status_code == 403
    assert "403.html" in [t.name for t in response.templates]
    html = response.content.decode()
    assert "css/app.css" in html and 'class="topbar"' in html  # the site's page, styled
    assert f'<a href="{reverse("annotation-home")}">My campaigns</a>' in html  # navigation
    assert f'<a href="{reverse("annotation-home")}">Back to your campaigns</a>' in html
    assert reverse("collection-list") not in html  # no researcher links for an annotator


def test_the_404_page_has_the_navigation_too(db, client):
    client.force_login(make_annotator("anna"))
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert 'class="topbar"' in html and "My campaigns" in html
    assert "Back to your campaigns" in html
    anonymous = Client().get("/no-such-page/").content.decode()
    assert 'class="topbar"' in anonymous and "Back to the start page" in anonymous
