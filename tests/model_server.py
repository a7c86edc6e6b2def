"""Real OpenAI-compatible model servers for tests, on the embedded model.

``served_model``: ``transformers serve``, started once per session on a free local port (about
10 s on CPU). It answers chat and completion requests but returns no token log-probabilities,
which is what the refusal tests need. ``logprob_server``: ``tests/logprob_server.py``, which
returns them as vLLM does and can inject faults (see its docstring).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluation.backends.causal_lm_loading import gguf_cache_dir
from evaluation.backends.embedded import smollm2_gguf_path
from evaluation.backends.model.server import ServerConfig

READY_TIMEOUT_S = 180
ROOT = Path(__file__).resolve().parents[1]
TRANSFORMERS_CLI = Path(sys.executable).with_name("transformers")


@dataclass(frozen=True)
class ServedModel:
    base_url: str  # ends in /v1, as OpenAI clients expect
    model: str  # the name requests must give (the served folder)
    log_path: Path

    def config(self, **overrides: object) -> ServerConfig:
        values = {"base_url": self.base_url, "model": self.model, "timeout_s": 120.0}
        return ServerConfig(**{**values, **overrides})  # type: ignore[arg-type]

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def _root(self, path: str) -> str:
        return self.base_url.removesuffix("/v1") + path

    def inject_faults(self, **faults: float) -> None:
        """Log-prob server only: fail_next, status, delay (see tests/logprob_server.py)."""
        request = urllib.request.Request(
            self._root("/faults"),
            data=json.dumps(faults).encode(),
            headers={"Content-Type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=5).close()

    def stats(self) -> dict:
        with urllib.request.urlopen(self._root("/stats"), timeout=5) as response:
            return json.loads(response.read())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_health(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"model server exited with {process.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"model server not healthy after {READY_TIMEOUT_S} s:\n{log_path.read_text()}")


def start_server(
    command: list[str], port: int, log_path: Path, env: dict[str, str] | None = None
) -> subprocess.Popen:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", **(env or {})}
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
    wait_for_health(f"http://127.0.0.1:{port}/health", process, log_path)
    return process


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@pytest.fixture(scope="session")
def served_model(model_cache_dir: Path, tmp_path_factory) -> Iterator[ServedModel]:
    """``transformers serve`` on the embedded model's converted folder."""
    folder = gguf_cache_dir(smollm2_gguf_path(), model_cache_dir)
    assert (folder / "config.json").is_file(), f"run manage.py prepare_models first: {folder}"
    port = free_port()
    log_path = tmp_path_factory.mktemp("served") / "transformers-serve.log"
    command = [
        str(TRANSFORMERS_CLI), "serve", str(folder),
        "--host", "127.0.0.1", "--port", str(port), "--device", "cpu",
    ]  # fmt: skip
    process = start_server(command, port, log_path)
    try:
        yield ServedModel(f"http://127.0.0.1:{port}/v1", str(folder), log_path)
    finally:
        stop_server(process)


LOGPROB_MODEL = "embedded-smollm2"  # the name the log-prob server answers to


@pytest.fixture(scope="session")
def logprob_served_model(model_cache_dir: Path, tmp_path_factory) -> Iterator[ServedModel]:
    """``tests/logprob_server.py``: log-probs as vLLM gives them, faults on request."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("logprob-server") / "server.log"
    command = [
        sys.executable, "-m", "tests.logprob_server",
        "--cache-dir", str(model_cache_dir), "--model", LOGPROB_MODEL, "--port", str(port),
    ]  # fmt: skip
    process = start_server(command, port, log_path, {"PYTHONPATH": str(ROOT)})
    try:
        yield ServedModel(f"http://127.0.0.1:{port}/v1", LOGPROB_MODEL, log_path)
    finally:
        stop_server(process)
