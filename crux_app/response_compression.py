"""gzip for HTML and JSON responses, with the exceptions BREACH and downloads call for.

Pages and API answers are compressed when the client sends ``Accept-Encoding: gzip`` (Django's
``GZipMiddleware``: bodies under 200 bytes are left as they are, ``Vary: Accept-Encoding`` is
set). BREACH, where a secret is reflected in a compressed page beside text an attacker
controls, is met three ways:

- CSRF tokens: Django masks the token with a fresh random mask in every response, so its bytes
  never repeat and compression cannot reveal it; ``GZipMiddleware`` also pads the gzip header
  with 0-100 random bytes ("Heal the Breach"), which blurs the length an attacker measures.
- A secret shown once (a freshly made API token, a new webhook secret) is never compressed:
  its view is marked with ``never_compress`` (or its response with ``never_compressed``).
- Downloads and streaming responses (exports, files, WhiteNoise's static files) pass through
  untouched: their Content-Length and byte ranges stay those of the file.

Only gzip: brotli would need code of our own without Django's random padding. Static files are
served, pre-compressed (gzip, and brotli where the package is installed) and cached for a year,
by WhiteNoise, which answers before this middleware runs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TypeVar

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

from crux_app.cache_headers import is_download

# The response attribute that keeps a response uncompressed (set through the two helpers below).
NEVER_COMPRESS_ATTRIBUTE = "crux_never_compress"

# Media types worth compressing: HTML and JSON (API answers, problem details, the schema).
COMPRESSED_TYPES = ("text/html", "application/json")
COMPRESSED_SUFFIXES = ("+json",)

ResponseT = TypeVar("ResponseT", bound=HttpResponseBase)
ViewT = TypeVar("ViewT", bound=Callable[..., HttpResponseBase])


def never_compressed(response: ResponseT) -> ResponseT:
    """Marks a response that shows a secret so that it is sent uncompressed (BREACH)."""
    setattr(response, NEVER_COMPRESS_ATTRIBUTE, True)
    return response


def never_compress(view: ViewT) -> ViewT:
    """View decorator: the view's responses show a secret and are never compressed."""

    @wraps(view)
    def wrapped(*args, **kwargs):
        return never_compressed(view(*args, **kwargs))

    return wrapped  # type: ignore[return-value]


def is_compressible(response: HttpResponseBase) -> bool:
    """Whether the response is an HTML or JSON body that may be compressed."""
    if getattr(response, NEVER_COMPRESS_ATTRIBUTE, False):
        return False
    if response.streaming or is_download(response):
        return False
    media_type = response.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return media_type in COMPRESSED_TYPES or media_type.endswith(COMPRESSED_SUFFIXES)


class ResponseCompressionMiddleware(GZipMiddleware):
    """``GZipMiddleware`` for HTML and JSON only, never for a response marked as showing a
    secret, a download or a streaming response. Goes after WhiteNoise (static files keep
    their own pre-compressed copies) and before every middleware that reads the body."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if not is_compressible(response):
            return response
        return super().process_response(request, response)
