"""The destination guard: private, loopback, link-local and reserved addresses are refused
(every address of the host), unless WEBHOOKS_ALLOW_PRIVATE; http(s) only."""

import pytest

from webhooks.address_guard import RefusedDestination, check_destination

REFUSED = [
    "http://127.0.0.1/hook",
    "http://localhost:8000/hook",  # a name: resolved, then refused
    "http://10.1.2.3/",
    "http://172.16.0.9/",
    "https://192.168.1.20/",
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata (link-local)
    "http://100.64.0.1/",  # shared address space
    "http://0.0.0.0/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://224.0.0.1/",  # multicast
    "http://240.0.0.1/",  # reserved
]


@pytest.mark.parametrize("url", REFUSED)
def test_private_and_reserved_destinations_are_refused(url):
    with pytest.raises(RefusedDestination, match="public addresses only"):
        check_destination(url, allow_private=False)


def test_public_address_is_allowed_and_pinned():
    destination = check_destination("https://8.8.8.8:8443/path?q=1", allow_private=False)
    assert (destination.address, destination.port, destination.path) == (
        "8.8.8.8",
        8443,
        "/path?q=1",
    )
    assert destination.host_header == "8.8.8.8:8443"


def test_setting_allows_private_destinations(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    destination = check_destination("http://localhost:8000/hook")
    assert destination.address in {"127.0.0.1", "::1"}
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    with pytest.raises(RefusedDestination):
        check_destination("http://localhost:8000/hook")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://8.8.8.8/x", "only http"),
        ("file:///etc/passwd", "only http"),
        ("http://user:pw@8.8.8.8/", "user name or password"),
        ("http:///nohost", "no host"),
        ("http://8.8.8.8:99999/", "not a valid URL"),
        ("http://no-such-host.invalid/", "does not resolve"),
    ],
)
def test_other_urls_are_refused_with_a_reason(url, reason):
    with pytest.raises(RefusedDestination, match=reason):
        check_destination(url, allow_private=True)
