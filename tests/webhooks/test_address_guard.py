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
    # IPv6 forms of internal IPv4 addresses, and site-local: Python's is_global calls them global.
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254 (cloud metadata)
    "http://[64:ff9b:1::7f00:1]/",  # local-use NAT64 prefix
    "http://[::127.0.0.1]/",  # IPv4-compatible loopback
    "http://[::7f00:1]/",
    "http://[::a9fe:a9fe]/",
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2002:a00:1::1]/",  # 6to4 of 10.0.0.1
    "http://[fec0::1]/",  # site-local
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
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


@pytest.mark.parametrize(
    "url",
    [
        "http://[64:ff9b::808:808]/",  # NAT64 of 8.8.8.8
        "http://[2002:808:808::1]/",  # 6to4 of 8.8.8.8
        "http://[::ffff:8.8.8.8]/",
        "http://[2001:4860:4860::8888]/",
    ],
)
def test_ipv6_forms_of_public_addresses_are_allowed(url):
    assert check_destination(url, allow_private=False).address


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
