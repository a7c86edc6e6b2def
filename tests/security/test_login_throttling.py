"""Failed logins are throttled per account and per IP address (django-axes): after
``AXES_FAILURE_LIMIT`` failures even the right password is refused for the cool-off, with a
plain lockout page (429), and the lockout is logged."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse

from crux_app.client_address import client_address

pytestmark = pytest.mark.django_db

RIGHT = "research-pass-1"  # the researcher fixture's password


def log_in(client, username: str, password: str, ip: str = "10.0.0.1", url: str | None = None):
    return client.post(
        url or reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=ip,
    )


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_twenty_wrong_logins_then_the_right_one_is_refused(client, researcher, caplog):
    with caplog.at_level(logging.WARNING, logger="axes"):
        for _ in range(20):
            assert log_in(client, "rita", "wrong-guess").status_code in (200, 429)
        response = log_in(client, "rita", RIGHT)
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many failed logins" in html and "15 minutes" in html
    assert 'class="topbar"' in html  # the site's page, not a bare text or a 500
    assert not logged_in(client)
    assert "Locking out" in caplog.text
    assert "rita" in caplog.text and "10.0.0.1" in caplog.text


def test_the_lockout_starts_at_the_failure_limit(client, researcher):
    limit = settings.AXES_FAILURE_LIMIT
    for attempt in range(1, limit + 1):
        status = log_in(client, "rita", f"wrong-{attempt}").status_code
        assert status == (429 if attempt == limit else 200), attempt
    assert log_in(client, "rita", RIGHT).status_code == 429


def test_fewer_failures_than_the_limit_do_not_lock_and_a_success_resets_them(client, researcher):
    for round_ in range(3):
        for attempt in range(settings.AXES_FAILURE_LIMIT - 1):
            assert log_in(client, "rita", f"wrong-{round_}-{attempt}").status_code == 200
        assert log_in(client, "rita", RIGHT).status_code == 302
        assert logged_in(client)
        client.logout()


def test_one_address_guessing_many_accounts_is_locked_out(client, researcher):
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, f"user{n}", "wrong-guess", ip="10.0.0.7")
    assert log_in(client, "rita", RIGHT, ip="10.0.0.7").status_code == 429
    # rita herself had no failure: from another address she logs in.
    assert log_in(client, "rita", RIGHT, ip="10.0.0.8").status_code == 302


def test_one_account_guessed_from_many_addresses_is_locked_out(client, researcher):
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "rita", "wrong-guess", ip=f"10.0.1.{n}")
    assert log_in(client, "rita", RIGHT, ip="10.0.2.1").status_code == 429
    assert not logged_in(client)


def test_the_admin_login_is_throttled_too(client, researcher):
    researcher.is_staff = True
    researcher.save()
    admin_login = reverse("admin:login")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "rita", "wrong-guess", url=admin_login)
    assert log_in(client, "rita", RIGHT, url=admin_login).status_code == 429
    assert not logged_in(client)


def test_client_login_with_a_request_goes_through_the_lockout_check(client, researcher):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert not client.login(request=HttpRequest(), username="rita", password="wrong")
    assert not client.login(request=HttpRequest(), username="rita", password=RIGHT)


# --- Behind a reverse proxy (DJANGO_TRUSTED_PROXY_HEADER) --------------------------------------

PROXY = "10.9.9.9"  # every request reaches Django from the proxy's address


def log_in_via_proxy(client, username: str, password: str, forwarded: str):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=PROXY,
        HTTP_X_FORWARDED_FOR=forwarded,
    )


@pytest.fixture
def behind_proxy(settings):
    settings.TRUSTED_PROXY_HEADER = "HTTP_X_FORWARDED_FOR"
    settings.TRUSTED_PROXY_COUNT = 1
    return settings


def test_behind_the_proxy_one_clients_failures_do_not_lock_out_another(
    client, researcher, behind_proxy
):
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in_via_proxy(client, f"user{n}", "wrong-guess", "203.0.113.5")
    # The guesser is locked out, whatever account it tries next...
    assert log_in_via_proxy(client, "rita", RIGHT, "203.0.113.5").status_code == 429
    # ...but rita, behind the same proxy from her own address, logs in.
    assert log_in_via_proxy(client, "rita", RIGHT, "198.51.100.7").status_code == 302
    assert logged_in(client)


def test_without_the_setting_everyone_behind_the_proxy_shares_its_address(client, researcher):
    """What the setting is for: without it, anyone's failures lock every client out."""
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in_via_proxy(client, f"user{n}", "wrong-guess", "203.0.113.5")
    assert log_in_via_proxy(client, "rita", RIGHT, "198.51.100.7").status_code == 429


def test_addresses_a_client_prepends_to_the_header_are_not_trusted(
    client, researcher, behind_proxy
):
    # The proxy appends the address it saw; a guesser rotating a fake left part stays one client.
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in_via_proxy(client, f"user{n}", "wrong-guess", f"1.2.3.{n}, 203.0.113.5")
    assert log_in_via_proxy(client, "rita", RIGHT, "203.0.113.5").status_code == 429


@pytest.mark.parametrize(
    ("count", "header", "address"),
    [
        (1, "203.0.113.5", "203.0.113.5"),
        (1, "6.6.6.6, 203.0.113.5", "203.0.113.5"),
        (2, "6.6.6.6, 203.0.113.5, 10.0.0.2", "203.0.113.5"),
        (2, "203.0.113.5", PROXY),  # fewer entries than proxies: the header is not trusted
        (1, "not-an-address", PROXY),
        (1, "", PROXY),
        (1, " 2001:db8::1 ", "2001:db8::1"),
    ],
)
def test_the_client_address_is_counted_from_the_right(rf, behind_proxy, count, header, address):
    behind_proxy.TRUSTED_PROXY_COUNT = count
    request = rf.get("/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=header)
    assert client_address(request) == address
