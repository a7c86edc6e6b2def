"""One webhook POST whose whole exchange (connect, TLS handshake, sending, the answer's headers
and body) ends by one deadline, to the address ``address_guard`` checked.

A per-operation socket timeout does not bound an attempt: a receiver that sends one byte every
second never lets a read time out. Here the socket itself carries the deadline: before every
send and receive its timeout is set to the time left (``DeadlineSocket``, ``DeadlineSSLSocket``),
and once none is left the operation raises ``AttemptTimeout``; an answer that overruns counts as
a failed attempt, whatever its status. After connecting, the socket's peer address is checked
again (the address actually connected to must be one webhooks may reach).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass

from .address_guard import Destination, RefusedDestination, allowed

EXCERPT_BYTES = 4096
EXCERPT_CHARS = 1000
CONNECT_MAX_S = 5.0


class AttemptTimeout(TimeoutError):
    """The attempt's deadline passed before the exchange ended."""


@dataclass(frozen=True)
class Response:
    status: int
    excerpt: str


class _Deadline:
    """Sets the socket's timeout to the time left before each blocking call."""

    deadline: float = 0.0
    total_s: float = 0.0

    def _arm(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise AttemptTimeout(f"no complete answer within {self.total_s:g} s")
        self.settimeout(left)  # type: ignore[attr-defined]

    def _bounded(self, call, *args):  # noqa: ANN001, ANN202 - a socket method and its args
        self._arm()
        try:
            return call(*args)
        except TimeoutError as exc:  # socket.timeout: the time left ran out inside the call
            raise AttemptTimeout(f"no complete answer within {self.total_s:g} s") from exc


class DeadlineSocket(_Deadline, socket.socket):
    """A TCP socket whose sends and receives end by ``deadline`` (time.monotonic())."""

    def recv(self, *args):  # noqa: ANN002, ANN201 - socket's signature
        return self._bounded(super().recv, *args)

    def recv_into(self, *args):  # noqa: ANN002, ANN201
        return self._bounded(super().recv_into, *args)

    def send(self, *args):  # noqa: ANN002, ANN201
        return self._bounded(super().send, *args)

    def sendall(self, *args):  # noqa: ANN002, ANN201
        return self._bounded(super().sendall, *args)


class DeadlineSSLSocket(_Deadline, ssl.SSLSocket):
    """The TLS socket over a ``DeadlineSocket``: the handshake, reads and writes by the same
    deadline (the handshake's timeout is its total duration)."""

    def do_handshake(self, *args):  # noqa: ANN002, ANN201
        return self._bounded(super().do_handshake, *args)

    def read(self, *args):  # noqa: ANN002, ANN201
        return self._bounded(super().read, *args)

    def send(self, *args):  # noqa: ANN002, ANN201
        return self._bounded(super().send, *args)


def _connect(destination: Destination, deadline: float, total_s: float) -> socket.socket:
    """A socket connected to the checked address (TLS for https), bounded by ``deadline``."""
    address = ipaddress.ip_address(destination.address.split("%", 1)[0])
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    sock = DeadlineSocket(family, socket.SOCK_STREAM)
    sock.deadline, sock.total_s = deadline, total_s
    try:
        left = deadline - time.monotonic()
        sock.settimeout(max(0.001, min(CONNECT_MAX_S, left)))
        try:
            sock.connect((destination.address, destination.port))
        except TimeoutError as exc:
            raise AttemptTimeout(f"no connection within {min(CONNECT_MAX_S, left):g} s") from exc
        # The address actually connected to, checked like every resolved one.
        peer = str(sock.getpeername()[0])
        if not allowed(peer):
            raise RefusedDestination(f"connected to {peer}, which webhooks may not reach")
        if destination.scheme != "https":
            return sock
        context = ssl.create_default_context()
        context.sslsocket_class = DeadlineSSLSocket
        tls = context.wrap_socket(
            sock, server_hostname=destination.host, do_handshake_on_connect=False
        )
        tls.deadline, tls.total_s = deadline, total_s
        tls.do_handshake()
        return tls
    except BaseException:
        sock.close()
        raise


class _Connection(http.client.HTTPConnection):
    """http.client's connection over the deadline socket (the checked address, not a name)."""

    def __init__(self, destination: Destination, deadline: float, total_s: float) -> None:
        super().__init__(destination.address, destination.port)
        self.destination, self.deadline, self.total_s = destination, deadline, total_s

    def connect(self) -> None:
        self.sock = _connect(self.destination, self.deadline, self.total_s)


def post(
    destination: Destination, headers: dict[str, str], body: bytes, total_s: float
) -> Response:
    """POST ``body``; the whole exchange takes at most ``total_s`` (``AttemptTimeout``);
    at most ``EXCERPT_BYTES`` of the answer are read. Connection, TLS and HTTP errors
    (OSError, http.client.HTTPException) propagate; no redirect is followed."""
    deadline = time.monotonic() + total_s
    connection = _Connection(destination, deadline, total_s)
    answer = None
    try:
        connection.request(
            "POST",
            destination.path,
            body=body,
            headers={**headers, "Host": destination.host_header, "Connection": "close"},
        )
        answer = connection.getresponse()
        raw = answer.read(EXCERPT_BYTES)
    finally:
        if answer is not None:
            answer.close()  # its file holds the socket open until closed
        connection.close()
    return Response(answer.status, raw.decode("utf-8", errors="replace")[:EXCERPT_CHARS])
