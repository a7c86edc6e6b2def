"""Personal API tokens: stored hashed, shown once, revocable, last-used time, throttled; the
account page (post/redirect/get) and ``manage.py create_api_token``; 401 without a token;
optional expiry; researchers and reviewers only."""

import hashlib
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from api.models import ApiToken
from api.tokens import TokenRefused, issue_token, token_digest
from crux_app.roles import RESEARCHER, REVIEWER, add_role

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
    # Post/redirect/get: the token waits in the session for the page after the redirect.
    assert response.status_code == 302 and response.url == reverse("api-tokens")
    shown = researcher_client.get(reverse("api-tokens"))
    token = shown.context["new_token"]
    assert token in shown.content.decode()
    assert "no-store" in shown.headers["Cache-Control"]
    assert TokenClient(token).get(COLLECTIONS).status_code == 200
    # Reloading the page neither shows the token again nor makes a second one.
    again = researcher_client.get(reverse("api-tokens")).content.decode()
    assert f'href="{reverse("api-tokens")}"' in again  # linked from every page's account area
    assert token not in again
    assert "pipeline" in again and token[:12] in again
    assert ApiToken.objects.filter(user=researcher).count() == 1


def test_a_new_token_is_not_kept_in_the_session_after_it_was_shown(researcher_client):
    researcher_client.post(reverse("api-tokens"), {"name": "pipeline"})
    assert any("crux_" in str(v) for v in researcher_client.session.values())
    researcher_client.get(reverse("api-tokens"))
    assert not any("crux_" in str(v) for v in researcher_client.session.values())


def test_a_token_may_expire_and_then_is_refused(researcher_client, researcher):
    response = researcher_client.post(
        reverse("api-tokens"), {"name": "week", "expires_in_days": "7"}
    )
    assert response.status_code == 302
    token = researcher_client.get(reverse("api-tokens")).context["new_token"]
    row = ApiToken.objects.get(user=researcher)
    assert timedelta(days=6, hours=23) < row.expires_at - timezone.now() <= timedelta(days=7)
    page = researcher_client.get(reverse("api-tokens")).content.decode()
    assert row.expires_at.strftime("%Y-%m-%d") in page
    assert TokenClient(token).get(COLLECTIONS).status_code == 200
    ApiToken.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    refused = TokenClient(token).get(COLLECTIONS)
    assert refused.status_code == 401 and "expired" in refused.json()["detail"]
    assert "expired" in researcher_client.get(reverse("api-tokens")).content.decode()


@pytest.mark.parametrize("days", ["0", "-1", "3651", "x", "1e3"])
def test_expiry_out_of_bounds_is_a_400(researcher_client, days):
    response = researcher_client.post(reverse("api-tokens"), {"name": "x", "expires_in_days": days})
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_annotators_and_prolific_participants_cannot_mint_tokens(client, annotator):
    client.force_login(annotator)
    assert client.get(reverse("api-tokens")).status_code == 403
    assert client.post(reverse("api-tokens"), {"name": "elsewhere"}).status_code == 403
    assert not ApiToken.objects.exists()
    assert 'href="/account/api-tokens/"' not in client.get("/annotate/").content.decode()
    with pytest.raises(TokenRefused):
        issue_token(annotator, "elsewhere")
    with pytest.raises(CommandError, match="researchers and reviewers"):
        call_command("create_api_token", "--user", annotator.username, stdout=StringIO())


def test_a_token_of_an_account_without_the_role_is_refused_on_every_route(annotator):
    """A token made before this rule (or whose account lost its role) opens no API route."""
    token = "crux_old-annotator-token-0123456789abcdef"
    ApiToken.objects.create(
        user=annotator, name="old", prefix=token[:12], digest=token_digest(token)
    )
    api = TokenClient(token)
    for url in ("/api/v1/annotate/", COLLECTIONS, "/api/v1/jobs/"):
        response = api.get(url)
        assert response.status_code == 401, url
        assert "researchers and reviewers" in response.json()["detail"]


def test_reviewers_may_hold_tokens(client, django_user_model):
    reviewer = django_user_model.objects.create_user("rev", password="review-pass-1")
    add_role(reviewer, REVIEWER)
    client.force_login(reviewer)
    assert client.post(reverse("api-tokens"), {"name": "client"}).status_code == 302
    token = client.get(reverse("api-tokens")).context["new_token"]
    assert TokenClient(token).get("/api/v1/review-campaigns/").status_code == 200


def test_one_cannot_revoke_another_accounts_token(client, researcher, django_user_model):
    row, token = issue_token(researcher, "mine")
    other = django_user_model.objects.create_user("otto", password="research-pass-2")
    add_role(other, RESEARCHER)
    client.force_login(other)
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


def test_annotator_cannot_read_researcher_data(annotator_api):
    assert annotator_api.get(COLLECTIONS).status_code == 403
    assert annotator_api.get("/api/v1/jobs/").status_code == 403
