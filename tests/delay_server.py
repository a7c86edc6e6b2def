"""A tiny OpenAI-compatible server that answers every request after a fixed delay: a stand-in
for a remote GPU server, so the worker tests (and bench/scale_out.py) can see how jobs spread
over workers on a machine whose cores cannot scale real model work.

It answers chat and plain completions with the text ``answer`` (default "4": a rating of the
CRUX rubric) and counts the requests per prompt, so a caller sees prompts asked twice.
``GET /stats`` returns ``{"requests": N, "repeated": R}`` (R: requests beyond the first for
the same prompt); ``POST /reset`` zeroes the counts.

    python -m tests.delay_server --port 8999 --delay 0.2
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class DelayServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int = 0, delay_s: float = 0.2, answer: str = "4") -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.delay_s = delay_s
        self.answer = answer
        self.lock = threading.Lock()
        self.prompts: Counter[str] = Counter()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def stats(self) -> dict[str, int]:
        with self.lock:
            total = sum(self.prompts.values())
            return {"requests": total, "repeated": total - len(self.prompts)}

    def start(self) -> DelayServer:
        """Serve from a daemon thread of this process."""
        threading.Thread(target=self.serve_forever, name="delay-server", daemon=True).start()
        return self


class _Handler(BaseHTTPRequestHandler):
    server: DelayServer

    def log_message(self, *args: object) -> None:  # quiet: thousands of requests
        pass

    def _send(self, body: dict, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.rstrip("/").endswith("/stats"):
            self._send(self.server.stats())
        else:
            self._send({"object": "list", "data": [{"id": "delay", "object": "model"}]})

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path.rstrip("/").endswith("/reset"):
            with self.server.lock:
                self.server.prompts.clear()
            self._send({})
            return
        chat = self.path.endswith("/chat/completions")
        prompt = json.dumps(body.get("messages")) if chat else str(body.get("prompt"))
        # The log-prob capability probe (this server returns none, so items never ask for them)
        # is not an item's request.
        probe = bool(body.get("logprobs"))
        if not probe:
            with self.server.lock:
                self.server.prompts[prompt] += 1
        time.sleep(self.server.delay_s)
        answer = self.server.answer
        choice = {"index": 0, "finish_reason": "stop", "logprobs": None}
        if chat:
            choice["message"] = {"role": "assistant", "content": answer}
        else:
            choice["text"] = answer
        self._send(
            {
                "id": "delay-1",
                "object": "chat.completion" if chat else "text_completion",
                "created": int(time.time()),
                "model": body.get("model", "delay"),
                "choices": [choice],
                "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8999)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds before each answer")
    args = parser.parse_args()
    server = DelayServer(args.port, args.delay)
    print(f"serving {server.base_url} (delay {args.delay} s)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
