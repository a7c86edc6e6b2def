"""Refusing an oversized request body before anything reads it (413), with a larger allowance
for a researcher's upload: the views that set ``streams_uploads`` (the upload page, a failed
import's replacement upload, the API's import) stream their files to disk up to
``UPLOAD_MAX_BYTES``."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from crux_app.roles import is_researcher

API_PREFIX = "/api/"


class RequestBodyLimitMiddleware:
    """413 for a request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, by its Content-Length, unless
    a researcher sends it to an upload view (``streams_uploads``): there the limit is
    ``UPLOAD_MAX_BYTES`` plus the form fields' allowance. Listed before ``CsrfViewMiddleware``:
    its ``process_view`` runs first, so an oversized body is refused before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is None or length <= limit:
            return None
        view_class = getattr(view_func, "view_class", None)
        if getattr(view_class, "streams_uploads", False) and _uploader_is_researcher(
            request, view_class
        ):
            # The files may hold UPLOAD_MAX_BYTES; the multipart framing and form fields fit
            # in the form allowance. The stored files' sizes are checked again exactly.
            uploads = settings.UPLOAD_MAX_BYTES
            if length <= uploads + limit:
                return None
            return _too_large(
                request,
                f"Upload too large: {length:,} bytes sent; at most {uploads:,} bytes of files "
                "may be uploaded at once (UPLOAD_MAX_BYTES). Import a larger release with the "
                "import commands.",
            )
        return _too_large(
            request,
            f"Request body too large: {length:,} bytes sent; at most {limit:,} bytes "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE).",
        )


def _too_large(request: HttpRequest, text: str) -> HttpResponse:
    """A 413: JSON on the API's routes (as its other errors), plain text elsewhere."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": text}, status=413)
    return HttpResponse(text, status=413, content_type="text/plain; charset=utf-8")


def _uploader_is_researcher(request: HttpRequest, view_class: type) -> bool:
    """Whether a researcher sends the upload: the session's account, or the one a view that
    authenticates by itself (an API token, ``may_stream_uploads``) finds."""
    if is_researcher(request.user):
        return True
    may_stream = getattr(view_class, "may_stream_uploads", None)
    return bool(may_stream and may_stream(request))
