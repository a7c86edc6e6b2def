"""``Cache-Control: no-store`` on every page a logged-in account sees and on every download.

Researcher pages and exports hold unpublished labels, judgments and account names: a shared
or proxy cache, or the browser's disk cache on a shared machine, must not keep a copy.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers


def is_download(response: HttpResponse) -> bool:
    """Whether the response is a file to save (an export or another download)."""
    return response.get("Content-Disposition", "").lower().startswith("attachment")


class NoStoreMiddleware:
    """Marks responses to authenticated requests, and downloads, as never to be stored.

    Goes after AuthenticationMiddleware (it reads ``request.user``); static files are answered
    by WhiteNoise before it and keep their long caching.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if (user is not None and user.is_authenticated) or is_download(response):
            add_never_cache_headers(response)
        return response
