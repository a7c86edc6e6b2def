"""The client's address behind a trusted reverse proxy, for the failed-login throttle.

Behind a proxy every request comes from the proxy's address, so throttling by REMOTE_ADDR
would lock every user out after anyone's failures. With ``DJANGO_TRUSTED_PROXY_HEADER`` set
(e.g. ``HTTP_X_FORWARDED_FOR``), the address is read from that header as the trusted proxies
wrote it: ``DJANGO_TRUSTED_PROXY_COUNT`` proxies each append the address they received from,
so the client's is that many entries from the right. Entries further left were sent by the
client and are never trusted. Unset, REMOTE_ADDR is the client (no proxy).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """The client's IP address: from the trusted proxy's header when one is configured, else
    REMOTE_ADDR (also when the header is missing or malformed)."""
    remote = request.META.get("REMOTE_ADDR")
    header = settings.TRUSTED_PROXY_HEADER
    if not header:
        return remote
    entries = [e.strip() for e in str(request.META.get(header, "")).split(",") if e.strip()]
    count = settings.TRUSTED_PROXY_COUNT
    if len(entries) < count:
        return remote
    candidate = entries[-count]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
