"""An OpenAI-compatible server that returns token log-probabilities, as vLLM does, for tests.

``transformers serve`` ignores ``logprobs``; vLLM needs a GPU build. This process serves the
embedded model through the project's own ``TransformersGenerator`` so the backend's log-prob
path (chat ``logprobs``/``top_logprobs``, completions ``logprobs``) is tested over real HTTP
against real model numbers. ``top_logprobs`` are given for the first generated position only
(the backend asks for them with ``max_tokens`` = 1). ``POST /faults`` with
``{"fail_next": N, "status": S, "delay": D}`` answers the next N requests with status S (429,
503) and waits D seconds before each answer, and resets the counts; ``GET /stats`` reports the
requests seen since and the most in flight at once (the client's concurrency bound).

    python -m tests.logprob_server --cache-dir MODEL_CACHE_DIR --model NAME --port PORT
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import torch

from evaluation.backends.base import GenerationParams
from evaluation.backends.model.loading import build_generator


class State:
    def __init__(self, generator) -> None:
        self.generator = generator
        self.lock = threading.Lock()  # one model call at a time
        self.counter = threading.Lock()
        self.set_faults({})

    def set_faults(self, faults: dict) -> None:
        self.fail_next = int(faults.get("fail_next", 0))
        self.fail_status = int(faults.get("status", 503))
        self.delay_s = float(faults.get("delay", 0.0))
        self.requests = self.in_flight = self.max_in_flight = 0


def top_first(state: State, prompt: str, chat: bool, k: int) -> list[tuple[str, float]]:
    generator = state.generator
    ids = generator.encode_prompts([prompt], chat)[0]
    with torch.inference_mode():
        logits = generator.model(torch.tensor([ids], device=generator.device)).logits[0, -1]
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    values, indices = torch.topk(logprobs, k)
    return [
        (generator._decode([int(i)]), float(v))
        for v, i in zip(values.tolist(), indices.tolist(), strict=True)
    ]


def complete(state: State, body: dict, chat: bool) -> dict:
    if chat:
        messages = body["messages"]
        system = next((m["content"] for m in messages if m["role"] == "system"), None)
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        wants_logprobs = bool(body.get("logprobs"))
        k = int(body.get("top_logprobs") or 0)
    else:
        system, prompt = None, body["prompt"]
        k = int(body.get("logprobs") or 0)
        wants_logprobs = body.get("logprobs") is not None
    stop = body.get("stop") or ()
    params = GenerationParams(
        max_new_tokens=int(body.get("max_tokens") or 16),
        temperature=float(body.get("temperature", 1.0)),
        top_p=float(body.get("top_p", 1.0)),
        stop=tuple([stop] if isinstance(stop, str) else stop),
        seed=body.get("seed"),
        use_chat_template=chat,
        system_prompt=system,
    )
    with state.lock:
        [[generation]] = state.generator.generate([prompt], params)
        top = top_first(state, prompt, chat, k) if k else []
        prompt_tokens = len(state.generator.encode_prompts([prompt], chat, system)[0])
    pieces = list(zip(generation.tokens, generation.token_logprobs, strict=True))
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": len(pieces),
        "total_tokens": prompt_tokens + len(pieces),
    }
    finish = "stop" if generation.finish_reason == "stop" else "length"
    head = {"id": "test", "created": int(time.time()), "model": body["model"], "usage": usage}
    if chat:
        content = [
            {
                "token": token,
                "logprob": lp,
                "bytes": None,
                "top_logprobs": [
                    {"token": t, "logprob": v, "bytes": None} for t, v in (top if i == 0 else [])
                ],
            }
            for i, (token, lp) in enumerate(pieces)
        ]
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": generation.text},
            "finish_reason": finish,
            "logprobs": {"content": content} if wants_logprobs else None,
        }
        return {**head, "object": "chat.completion", "choices": [choice]}
    logprobs = None
    if wants_logprobs:
        logprobs = {
            "tokens": [t for t, _ in pieces],
            "token_logprobs": [lp for _, lp in pieces],
            "top_logprobs": [dict(top) if i == 0 else {} for i in range(len(pieces))],
            "text_offset": [],
        }
    choice = {"index": 0, "text": generation.text, "finish_reason": finish, "logprobs": logprobs}
    return {**head, "object": "text_completion", "choices": [choice]}


def make_handler(state: State, model: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._send(200, {"status": "ok"})
            elif self.path == "/stats":
                self._send(200, {"requests": state.requests, "max_in_flight": state.max_in_flight})
            else:
                self._send(404, {"detail": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/faults":
                with state.counter:
                    state.set_faults(body)
                self._send(200, {"ok": True})
                return
            with state.counter:
                state.requests += 1
                fail = state.fail_next > 0
                state.fail_next -= fail
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
            try:
                time.sleep(state.delay_s)
                status, payload = self._answer(body, fail)
            finally:
                # Leave the in-flight count before the answer is written: the client may send
                # its next request the moment it reads this one, before a later decrement ran.
                with state.counter:
                    state.in_flight -= 1
            self._send(status, payload)

        def _answer(self, body: dict, fail: bool) -> tuple[int, dict]:
            if fail:
                return state.fail_status, {"error": {"message": "injected fault"}}
            if body.get("model") != model:
                unknown = f"The model {body.get('model')!r} does not exist."
                return 404, {"error": {"message": unknown}}
            if self.path in ("/v1/chat/completions", "/v1/completions"):
                return 200, complete(state, body, chat="chat" in self.path)
            return 404, {"detail": "not found"}

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache-dir", required=True, help="MODEL_CACHE_DIR of the embedded model")
    parser.add_argument("--model", required=True, help="the name requests must give")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    generator = build_generator("", Path(args.cache_dir), torch.device("cpu"))
    state = State(generator)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(state, args.model))
    server.serve_forever()


if __name__ == "__main__":
    main()
