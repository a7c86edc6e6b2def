"""Which webhook destinations may be reached: http(s) URLs whose host resolves only to public
addresses (unless ``WEBHOOKS_ALLOW_PRIVATE``).

Every address of the host is checked, at registration and again before each attempt, and the
attempt connects to the address that was checked (``Destination.address``), so a DNS answer
that changes between the check and the connection (DNS rebinding) cannot reach an internal
service.
"""

from __future__ import annotations

import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

SCHEMES = {"http": 80, "https": 443}
RESOLVE_TIMEOUT_S = 5.0
# getaddrinfo has no timeout of its own: it runs on this pool and is waited for at most
# RESOLVE_TIMEOUT_S (a slow resolver leaves a thread behind, never a stuck request).
_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class RefusedDestination(ValueError):
    """A URL webhooks may not be sent to; the message says why."""


@dataclass(frozen=True)
class Destination:
    scheme: str
    host: str  # as written in the URL (the Host header and the TLS server name)
    port: int
    path: str  # path and query, never empty
    address: str  # the checked IP address to connect to

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == SCHEMES[self.scheme] else f"{host}:{self.port}"


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: a host reached through one
# is the IPv4 address, which is what must be public (RFC 4291 IPv4-compatible ::/96 and mapped
# ::ffff:0:0/96, RFC 6052 NAT64 64:ff9b::/96).
_LAST_32_BITS = (
    ipaddress.IPv6Network("::/96"),
    ipaddress.IPv6Network("::ffff:0:0/96"),
    ipaddress.IPv6Network("64:ff9b::/96"),
)
# Never public, whatever Python's ``is_global`` says: site-local (deprecated, RFC 3879) and
# the local-use NAT64 prefix (RFC 8215), which translates to a local network's addresses.
_REFUSED_V6 = (ipaddress.IPv6Network("fec0::/10"), ipaddress.IPv6Network("64:ff9b:1::/48"))


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address stands for (IPv4-compatible, mapped, NAT64, 6to4 and
    Teredo's server and client); empty for a native IPv6 address."""
    if any(address in network for network in _LAST_32_BITS):
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    if address.sixtofour is not None:
        return [address.sixtofour]
    if address.teredo is not None:
        return list(address.teredo)
    return []


def is_public(address: IPAddress) -> bool:
    """Not private, loopback, link-local, site-local, multicast, reserved, shared or
    unspecified, nor an IPv6 form of such an IPv4 address."""
    if isinstance(address, ipaddress.IPv6Address):
        if any(address in network for network in _REFUSED_V6):
            return False
        inner = embedded_ipv4(address)
        if inner:
            return all(is_public(v4) for v4 in inner)
    return address.is_global and not address.is_multicast


def allowed(address: str, allow_private: bool | None = None) -> bool:
    """Whether webhooks may go to this IP address (text, an IPv6 zone allowed)."""
    if allow_private is None:
        allow_private = settings.WEBHOOKS_ALLOW_PRIVATE
    return allow_private or is_public(ipaddress.ip_address(address.split("%", 1)[0]))


def _resolve(host: str, port: int, timeout_s: float) -> list[str]:
    try:
        future = _resolver.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
        infos = future.result(timeout=timeout_s)
    except FutureTimeout:
        message = f"the host {host!r} did not resolve within {timeout_s:g} s"
        raise RefusedDestination(message) from None
    except (OSError, UnicodeError) as exc:
        raise RefusedDestination(f"the host {host!r} does not resolve ({exc})") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_destination(
    url: str, allow_private: bool | None = None, resolve_timeout: float = RESOLVE_TIMEOUT_S
) -> Destination:
    """The URL's destination with a checked address, or ``RefusedDestination``."""
    if allow_private is None:
        allow_private = settings.WEBHOOKS_ALLOW_PRIVATE
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RefusedDestination(f"not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise RefusedDestination("only http:// and https:// URLs can receive webhooks")
    host = parts.hostname or ""
    if not host:
        raise RefusedDestination("the URL has no host")
    if parts.username or parts.password:
        raise RefusedDestination("the URL may not carry a user name or password")
    port = port or SCHEMES[scheme]
    addresses = _resolve(host, port, resolve_timeout)
    if not addresses:
        raise RefusedDestination(f"the host {host!r} has no address")
    for text in addresses:
        if not allowed(text, allow_private):
            raise RefusedDestination(
                f"{host!r} resolves to {text}, a private, loopback, link-local or reserved "
                "address (or an IPv6 form of one); webhooks go to public addresses only "
                "(WEBHOOKS_ALLOW_PRIVATE=1 allows others)"
            )
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Destination(scheme, host, port, path, addresses[0])
