"""Which roles are served by an OpenAI-compatible model server, read from the settings.

Per role (generator, judge, NLI): ``<ROLE>_API_BASE`` selects a server, ``<ROLE>_API_KEY`` is its
key and the role's model setting (GENERATOR_MODEL, JUDGE_MODEL, NLI_MODEL) the served model's
name. Keys come from the environment only: they live in a ``ServerConfig`` that never prints them
and never reach a job's parameters, a page or a log line; a user and password written into the
URL are masked wherever the URL is named (``crux_app.url_credentials``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings

from crux_app.url_credentials import mask_credentials

# Results of a served model are recorded under this prefix, so the same weights served and run
# in the worker are two judges.
SERVER_ID_PREFIX = "openai-api:"
# The openai client refuses an empty key; local servers (vLLM, transformers serve) ignore it.
NO_KEY = "no-key"


class ModelServerError(RuntimeError):
    """A model server could not answer: unreachable, unknown model, refused request."""


class BackendCapabilityError(RuntimeError):
    """A backend lacks what a method needs (token log-probabilities, teacher forcing)."""


@dataclass(frozen=True)
class ServerConfig:
    base_url: str
    model: str
    api_key: str = field(default=NO_KEY, repr=False, compare=False)
    max_concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 4

    @property
    def identity(self) -> str:
        """The model id results are stored under (backend + served model name)."""
        return f"{SERVER_ID_PREFIX}{self.model}"

    @property
    def where(self) -> str:
        """URL and model, for messages (never the key, nor a user or password in the URL)."""
        return f"model server {mask_credentials(self.base_url)} (model {self.model!r})"


def _server(base: str, key: str, model: str, role: str) -> ServerConfig | None:
    if not base:
        return None
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelServerError(f"{role}_API_BASE={mask_credentials(base)!r} is not an http(s) URL")
    if not model:
        raise ModelServerError(f"{role}_API_BASE is set: {role}_MODEL must name the served model")
    return ServerConfig(
        base_url=base.rstrip("/"),
        model=model,
        api_key=key or NO_KEY,
        max_concurrency=settings.MODEL_API_MAX_CONCURRENCY,
        timeout_s=settings.MODEL_API_TIMEOUT,
        max_retries=settings.MODEL_API_MAX_RETRIES,
    )


def generator_server() -> ServerConfig | None:
    return _server(
        settings.GENERATOR_API_BASE,
        settings.GENERATOR_API_KEY,
        settings.GENERATOR_MODEL,
        "GENERATOR",
    )


def judge_server(model: str | None = None) -> ServerConfig | None:
    """The judge's server: JUDGE_API_BASE, else the generator's when the judge is the generator.

    ``model`` (a job's own model) names another model on the same server.
    """
    if settings.JUDGE_API_BASE:
        return _server(
            settings.JUDGE_API_BASE,
            settings.JUDGE_API_KEY,
            model or settings.JUDGE_MODEL,
            "JUDGE",
        )
    if model is None and not settings.JUDGE_MODEL:
        return generator_server()
    return None


def nli_server() -> ServerConfig | None:
    """NLI_API_BASE: DENSE's LLM NLI prompt answered by the served NLI_MODEL."""
    return _server(settings.NLI_API_BASE, settings.NLI_API_KEY, settings.NLI_MODEL, "NLI")
