"""Who may read ``/metrics``: a client in METRICS_ALLOWED_NETWORKS, or one that sends
``Authorization: Bearer <METRICS_TOKEN>`` (when a token is configured)."""

from __future__ import annotations

import ipaddress
import secrets

from django.conf import settings
from django.http import HttpRequest

from crux_app.client_address import client_address


def _in_allowed_network(address: str | None) -> bool:
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.METRICS_ALLOWED_NETWORKS)


def _bearer_matches(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        return False
    scheme, _, sent = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    return scheme.lower() == "bearer" and secrets.compare_digest(sent.strip(), token)


def may_read_metrics(request: HttpRequest) -> bool:
    """True when the client's address is allowed or it sent the metrics token."""
    return _bearer_matches(request) or _in_allowed_network(client_address(request))
