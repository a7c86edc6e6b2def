"""Safe by default: the settings a real run gets without any environment, `check --deploy`
under production settings, the error pages, absolute URLs from SITE_URL (never the Host
header), the request-body limit and the password validators.

The settings are loaded in subprocesses with a chosen environment: this process's settings
come from pyproject's pytest env (a test-only secret key)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse
from django.views.defaults import server_error

from annotation.models import Campaign
from tests.annotation.campaign_data import make_campaign

BASE_DIR = settings.BASE_DIR
MB = 1024 * 1024
SHOWN = [
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SITE_URL", "CSRF_TRUSTED_ORIGINS",
    "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
    "SECURE_PROXY_SSL_HEADER", "DATA_UPLOAD_MAX_MEMORY_SIZE", "FILE_UPLOAD_MAX_MEMORY_SIZE",
    "AUTH_PASSWORD_VALIDATORS", "AUTHENTICATION_BACKENDS", "AXES_FAILURE_LIMIT",
]  # fmt: skip
SHOW_SETTINGS = f"""
import json, django
from django.conf import settings
django.setup()
print(json.dumps({{name: getattr(settings, name) for name in {SHOWN!r}}}, default=str))
"""


def clean_environment(**variables: str) -> dict[str, str]:
    """This process's environment without the variables that choose the settings, plus these."""
    chosen = {"DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DJANGO_SECURE"}
    # tests/browser_fixtures.py sets DJANGO_ALLOW_ASYNC_UNSAFE for Playwright: not a
    # deployment's setting.
    chosen |= {"SITE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in chosen}
    return {**env, "DJANGO_SETTINGS_MODULE": "crux_app.settings", **variables}


def run_python(code: str, **variables: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=clean_environment(**variables),
        capture_output=True,
        text=True,
        timeout=120,
    )


def loaded_settings(**variables: str) -> dict:
    completed = run_python(SHOW_SETTINGS, **variables)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def strong_key() -> str:
    return secrets.token_urlsafe(50)


# --- settings -------------------------------------------------------------------------------


def test_without_a_secret_key_production_settings_refuse_to_load():
    completed = run_python(SHOW_SETTINGS)
    assert completed.returncode != 0
    assert "ImproperlyConfigured: DJANGO_SECRET_KEY is not set" in completed.stderr
    assert "DJANGO_DEBUG=1" in completed.stderr  # says how to run for development
    assert "dev-only-insecure-key" not in completed.stdout


def test_defaults_are_production_settings():
    key = strong_key()
    loaded = loaded_settings(DJANGO_SECRET_KEY=key)
    assert loaded["DEBUG"] is False
    assert loaded["SECRET_KEY"] == key
    assert loaded["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]
    assert loaded["SITE_URL"] == "http://localhost:8000"
    assert loaded["CSRF_TRUSTED_ORIGINS"] == ["http://localhost:8000"]
    # Django's default body limits; the folder upload's file count stays raised.
    assert loaded["DATA_UPLOAD_MAX_MEMORY_SIZE"] == 2_621_440
    assert loaded["FILE_UPLOAD_MAX_MEMORY_SIZE"] == 2_621_440
    assert [v["NAME"].rsplit(".", 1)[1] for v in loaded["AUTH_PASSWORD_VALIDATORS"]] == [
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    ]
    assert loaded["AUTHENTICATION_BACKENDS"][0] == "axes.backends.AxesStandaloneBackend"
    assert loaded["AXES_FAILURE_LIMIT"] == 5
    # Plain HTTP until DJANGO_SECURE says TLS is in front.
    assert not loaded["SESSION_COOKIE_SECURE"] and not loaded["SECURE_SSL_REDIRECT"]


def test_debug_and_its_built_in_key_only_when_asked_for():
    loaded = loaded_settings(DJANGO_DEBUG="1")
    assert loaded["DEBUG"] is True
    assert loaded["SECRET_KEY"] == "dev-only-insecure-key-change-me"
    assert loaded_settings(DJANGO_DEBUG="0", DJANGO_SECRET_KEY=strong_key())["DEBUG"] is False


def test_hosts_site_url_and_tls_settings_come_from_the_environment():
    loaded = loaded_settings(
        DJANGO_SECRET_KEY=strong_key(),
        DJANGO_ALLOWED_HOSTS="crux.example.org, 10.0.0.5",
        SITE_URL="https://crux.example.org/",
        DJANGO_SECURE="1",
    )
    assert loaded["ALLOWED_HOSTS"] == ["crux.example.org", "10.0.0.5"]
    assert loaded["SITE_URL"] == "https://crux.example.org"
    assert loaded["CSRF_TRUSTED_ORIGINS"] == ["https://crux.example.org"]
    assert loaded["SESSION_COOKIE_SECURE"] and loaded["CSRF_COOKIE_SECURE"]
    assert loaded["SECURE_SSL_REDIRECT"]
    assert loaded["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert loaded["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_a_site_url_without_scheme_and_host_is_refused():
    completed = run_python(SHOW_SETTINGS, DJANGO_SECRET_KEY=strong_key(), SITE_URL="crux.org")
    assert completed.returncode != 0
    assert "SITE_URL must be an http(s) URL" in completed.stderr


def test_check_deploy_is_clean_under_production_settings():
    completed = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR,
        env=clean_environment(
            DJANGO_SECRET_KEY=strong_key(),
            DJANGO_SECURE="1",
            DJANGO_ALLOWED_HOSTS="crux.example.org",
            SITE_URL="https://crux.example.org",
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert "System check identified no issues" in output
    assert "WARNING" not in output


def test_the_standard_password_validators_refuse_weak_passwords():
    user = get_user_model()(username="margaret", email="margaret@example.org")
    for weak in ["password123", "12345678901", "margaret-1", "short1"]:
        with pytest.raises(ValidationError):
            validate_password(weak, user)
    validate_password("grey-heron-tide-47", user)


# --- error pages ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_anonymous_404_is_the_sites_plain_page_without_the_url_map(client):
    response = client.get("/no-such-page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert "Page not found" in html and 'class="topbar"' in html
    assert "URLconf" not in html and "admin/" not in html and "collections/" not in html


@pytest.mark.django_db
def test_a_forbidden_page_is_the_sites_plain_403(client, annotator):
    client.force_login(annotator)
    response = client.get(reverse("upload"))
    assert response.status_code == 403
    assert "Not allowed" in response.content.decode()
    assert 'class="topbar"' in response.content.decode()


def test_the_500_page_needs_no_context():
    html = render_to_string("500.html")
    assert "Server error" in html and "CRUX workbench" in html
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "Server error" in response.content.decode()


# --- absolute URLs from SITE_URL ------------------------------------------------------------


@pytest.mark.django_db
def test_a_foreign_host_header_is_refused(client):
    assert client.get(reverse("login"), HTTP_HOST="evil.example").status_code == 400
    assert client.get(reverse("login"), HTTP_HOST="localhost").status_code == 200


@pytest.mark.django_db
def test_the_prolific_study_link_starts_with_site_url_whatever_the_host(
    researcher_client, settings
):
    settings.ALLOWED_HOSTS = ["*"]  # as behind a proxy that passes any Host through
    settings.SITE_URL = "https://crux.example.org"
    campaign = make_campaign(prolific_enabled=True, prolific_completion_code="CODE42")
    response = researcher_client.get(
        reverse("campaign-detail", args=[campaign.pk]), HTTP_HOST="evil.example"
    )
    html = response.content.decode()
    path = reverse("annotation-prolific", args=[campaign.slug])
    assert f"https://crux.example.org{path}?PROLIFIC_PID=" in html
    assert "evil.example" not in html
    assert Campaign.objects.count() == 1


@pytest.mark.django_db
def test_password_reset_mails_link_to_site_url_whatever_the_host(client, settings):
    settings.ALLOWED_HOSTS = ["*"]
    settings.SITE_URL = "https://crux.example.org"
    get_user_model().objects.create_user("mia", "mia@example.org", "river-stone-88")
    response = client.post(
        reverse("password_reset"), {"email": "mia@example.org"}, HTTP_HOST="evil.example"
    )
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    assert "https://crux.example.org/accounts/reset/" in body
    assert "evil.example" not in body


# --- request bodies -------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_anonymous_30_mb_form_post_to_the_login_page_is_refused_unparsed(client):
    body = b"username=x&password=" + b"y" * (30 * MB)
    response = client.post(reverse("login"), body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 413


@pytest.mark.django_db
def test_an_anonymous_30_mb_file_post_is_refused_on_any_page(client):
    big = SimpleUploadedFile("big.bin", b"\0" * (30 * MB))
    assert client.post(reverse("login"), {"username": "x", "file": big}).status_code == 413
    big.seek(0)
    # The upload page too: its large bodies are a researcher's, not an anonymous visitor's.
    assert client.post(reverse("upload"), {"format": "run", "file": big}).status_code == 413


@pytest.mark.django_db
def test_an_annotator_may_not_send_a_large_body_to_the_upload_page(client, annotator):
    client.force_login(annotator)
    big = SimpleUploadedFile("big.run", b"\0" * (3 * MB))
    assert client.post(reverse("upload"), {"format": "run", "file": big}).status_code == 413


@pytest.mark.django_db
def test_a_researcher_still_uploads_files_larger_than_the_body_limit(
    researcher_client, settings, tmp_path
):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    line = b"t1 Q0 t1:0#0 1 1.0 big\n"
    content = line * (3 * MB // len(line) + 1)  # over DATA_UPLOAD_MAX_MEMORY_SIZE
    assert len(content) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = researcher_client.post(
        reverse("upload"),
        {
            "format": "run",
            "collection": "big",
            "run_name": "big",
            "file": SimpleUploadedFile("big.run", content),
        },
    )
    assert response.status_code == 302, response.content[:500]
    stored = list((tmp_path / "uploads").rglob("big.run"))
    assert [p.read_bytes() == content for p in stored] == [True]


def test_the_login_page_links_to_the_password_reset(client):
    html = client.get(reverse("login")).content.decode()
    reset = reverse("password_reset")
    assert f'<a href="{reset}" id="forgot-password">Forgot password?</a>' in html
    assert client.get(reset).status_code == 200
