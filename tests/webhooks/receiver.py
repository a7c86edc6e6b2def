"""A real HTTP server in a thread that receives webhooks: it answers 500 to the first
``fail_first`` requests, then ``status``; every request is recorded (headers and raw body).
With ``dribble`` ("headers" or "body") it sends that part of a 200 answer one byte every
``dribble_every_s`` (a receiver that never lets a read time out)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    fail_first: int = 0
    status: int = 200
    reply: bytes = b'{"ok": true}'
    delay_s: float = 0.0
    dribble: str = ""
    dribble_every_s: float = 0.2
    requests: list[Received] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/hooks/crux?via=test"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.requests.append(Received(self.path, dict(self.headers), body))
                if receiver.delay_s:
                    time.sleep(receiver.delay_s)
                if receiver.dribble:
                    self._dribble()
                    return
                failing = len(receiver.requests) <= receiver.fail_first
                status = 500 if failing else receiver.status
                reply = b"temporarily broken" if failing else receiver.reply
                self.send_response(status)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def _dribble(self) -> None:
                body = b"x" * 200
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                sent, slow = (b"", head + body) if receiver.dribble == "headers" else (head, body)
                try:
                    self.wfile.write(sent)
                    self.wfile.flush()
                    for byte in slow:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(receiver.dribble_every_s)
                except OSError:  # the sender gave up: what the test expects
                    pass
                self.close_connection = True

            def log_message(self, *args) -> None:  # quiet test output
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
