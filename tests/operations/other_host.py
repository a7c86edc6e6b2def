"""Another host on this machine: a network namespace joined to this one by a veth pair, and TCP
forwarders that let it reach this machine's PostgreSQL and Redis as a remote worker would (by
an address of the link, never 127.0.0.1, which is the namespace's own loopback)."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
from dataclasses import dataclass, field

SUBNET = "10.231.{n}.{host}"  # one /30 per test process, only on the veth link


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


@dataclass
class Forwarder:
    """Accepts on (host, a free port) and relays each connection to 127.0.0.1:target_port."""

    host: str
    target_port: int
    server: socket.socket = field(init=False)

    def __post_init__(self) -> None:
        self.server = socket.create_server((self.host, 0))
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server.getsockname()[1]

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
            upstream.settimeout(None)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()

    def close(self) -> None:
        self.server.close()


class Namespace:
    """``ip netns`` NAME with a veth link: this side .1, the namespace's side .2."""

    def __init__(self) -> None:
        n = os.getpid() % 250 + 1
        self.name = f"crux-h{os.getpid()}"
        self.host_address = SUBNET.format(n=n, host=1)
        self.inner_address = SUBNET.format(n=n, host=2)
        outer, inner = f"vh{os.getpid()}"[:15], f"vn{os.getpid()}"[:15]
        commands = [
            ["ip", "netns", "add", self.name],
            ["ip", "link", "add", outer, "type", "veth", "peer", "name", inner],
            ["ip", "link", "set", inner, "netns", self.name],
            ["ip", "addr", "add", f"{self.host_address}/30", "dev", outer],
            ["ip", "link", "set", outer, "up"],
            ["ip", "-n", self.name, "addr", "add", f"{self.inner_address}/30", "dev", inner],
            ["ip", "-n", self.name, "link", "set", inner, "up"],
            ["ip", "-n", self.name, "link", "set", "lo", "up"],
        ]
        self.outer = outer
        try:
            for command in commands:
                subprocess.run(command, check=True, capture_output=True, timeout=10)
        except BaseException:
            self.remove()
            raise

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *argv]

    def remove(self) -> None:
        subprocess.run(["ip", "link", "del", self.outer], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=10)


def can_make_namespaces() -> bool:
    """Root with ``ip netns`` (a CI container without the capability cannot)."""
    if os.geteuid() != 0:
        return False
    probe = f"crux-probe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, timeout=10)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=10)
    return made.returncode == 0
