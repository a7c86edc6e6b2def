"""Personal API tokens: stored hashed, shown once, revocable, last-used time, throttled; the
account page and ``manage.py create_api_token``; 401 without a token."""

import hashlib
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from api.models import ApiToken
from api.tokens import issue_token

from .conftest import TokenClient

pytestmark = pytest.mark.django_db

COLLECTIONS = "/api/v1/collections/"


def test_only_the_digest_is_stored(researcher):
    row, token = issue_token(researcher, "notebook")
    row.refresh_from_db()
    assert token.startswith("crux_") and len(token) > 40
    assert row.digest == hashlib.sha256(token.encode()).hexdigest()
    stored = [str(v) for v in ApiToken.objects.values_list(flat=False).get(pk=row.pk)]
    assert token not in stored
    assert row.prefix == token[:12]


def test_no_token_no_data(client):
    response = client.get(COLLECTIONS)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.json()["detail"]


@pytest.mark.parametrize("header", ["Bearer nope", "Bearer ", "Bearer a b", "Bearer " + "x" * 500])
def test_wrong_or_malformed_token_is_401(client, header):
    response = client.get(COLLECTIONS, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401


def test_token_authenticates_and_records_its_last_use(api, researcher):
    row = ApiToken.objects.get(user=researcher)
    assert row.last_used_at is None
    response = api.get(COLLECTIONS)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]  # unpublished data: never cached
    row.refresh_from_db()
    assert row.last_used_at is not None


def test_revoked_token_is_refused(researcher_client, researcher):
    row, token = issue_token(researcher, "old")
    assert TokenClient(token).get(COLLECTIONS).status_code == 200
    response = researcher_client.post(reverse("api-tokens"), {"token": row.pk, "revoke": "1"})
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.revoked_at is not None
    assert TokenClient(token).get(COLLECTIONS).status_code == 401


def test_account_page_shows_a_new_token_once(researcher_client, researcher):
    response = researcher_client.post(reverse("api-tokens"), {"name": "pipeline"})
    assert response.status_code == 200
    token = response.context["new_token"]
    assert token in response.content.decode()
    assert TokenClient(token).get(COLLECTIONS).status_code == 200
    again = researcher_client.get(reverse("api-tokens")).content.decode()
    assert f'href="{reverse("api-tokens")}"' in again  # linked from every page's account area
    assert token not in again
    assert "pipeline" in again and token[:12] in again
    assert (
        response.headers["Cache-Control"].startswith("max-age=0")
        or "no-store" in (response.headers["Cache-Control"])
    )


def test_one_cannot_revoke_another_accounts_token(client, annotator, researcher):
    row, token = issue_token(researcher, "mine")
    client.force_login(annotator)
    response = client.post(reverse("api-tokens"), {"token": row.pk, "revoke": "1"})
    assert response.status_code == 400
    assert TokenClient(token).get(COLLECTIONS).status_code == 200


def test_page_needs_a_login(client):
    response = client.get(reverse("api-tokens"))
    assert response.status_code == 302 and "/accounts/login/" in response.url


def test_command_prints_the_token_alone_on_its_last_line(researcher):
    out = StringIO()
    call_command("create_api_token", "--user", researcher.username, stdout=out, stderr=StringIO())
    token = out.getvalue().splitlines()[-1]
    assert token.startswith("crux_") and " " not in token
    assert TokenClient(token).get(COLLECTIONS).status_code == 200


def test_command_names_an_unknown_user():
    with pytest.raises(CommandError, match="no user named 'ghost'"):
        call_command("create_api_token", "--user", "ghost", stdout=StringIO())


def test_token_requests_are_throttled(api, settings):
    settings.API_TOKEN_THROTTLE_RATE = "3/min"
    statuses = [api.get(COLLECTIONS).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_annotator_token_cannot_read_researcher_data(annotator_api):
    assert annotator_api.get(COLLECTIONS).status_code == 403
    assert annotator_api.get("/api/v1/jobs/").status_code == 403
