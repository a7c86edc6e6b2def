"""The operations middleware: probes and metrics answered first, request ids, request metrics.

``OperationsEndpointsMiddleware`` is the first middleware: ``/healthz``, ``/readyz`` and
``/metrics`` are answered before the host check, the TLS redirect and the session, since a load
balancer or Prometheus reaches a process by its address and a probe must not touch the
database (``/healthz``) or need a login. They are not in the URL conf.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from .exposition import CONTENT_TYPE, scrape
from .log_context import bound, request_id
from .metrics_access import may_read_metrics
from .readiness import readiness
from .request_metrics import UNRESOLVED_VIEW, record_request

logger = logging.getLogger("crux.requests")

HEALTH_PATH, READY_PATH, METRICS_PATH = "/healthz", "/readyz", "/metrics"
# A request id a proxy sent is kept when it is short and plain; anything else gets a new one.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

Handler = Callable[[HttpRequest], HttpResponse]


class OperationsEndpointsMiddleware:
    """Answers the probes and the metrics scrape; passes everything else on."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info.rstrip("/") or "/"
        if path not in {HEALTH_PATH, READY_PATH, METRICS_PATH}:
            return self.get_response(request)
        if request.method not in {"GET", "HEAD"}:
            response: HttpResponse = HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
        elif path == HEALTH_PATH:
            response = HttpResponse("ok\n", content_type="text/plain")
        elif path == READY_PATH:
            checks = readiness()
            ready = all(check.ok for check in checks)
            body = {
                "status": "ready" if ready else "not ready",
                "checks": {check.name: check.as_json() for check in checks},
            }
            response = JsonResponse(body, status=200 if ready else 503)
        elif not may_read_metrics(request):
            response = HttpResponse("forbidden\n", status=403, content_type="text/plain")
        else:
            response = HttpResponse(scrape(), content_type=CONTENT_TYPE)
        response["Cache-Control"] = "no-store"
        return response


class RequestContextMiddleware:
    """Gives each request an id (the X-Request-ID header it came with, else a new one), returns
    it in X-Request-ID, binds it for the log lines, logs the request and counts it by view."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        sent = request.META.get("HTTP_X_REQUEST_ID", "")
        rid = sent if _REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex
        request.request_id = rid
        started = time.perf_counter()
        with bound(request_id, rid):
            response = self.get_response(request)
            seconds = time.perf_counter() - started
            match = getattr(request, "resolver_match", None)
            view = (match.view_name if match else "") or UNRESOLVED_VIEW
            record_request(view, request.method or "", response.status_code, seconds)
            logger.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "event": "request",
                    "method": request.method,
                    "path": request.path,
                    "view": view,
                    "status": response.status_code,
                    "duration_ms": round(seconds * 1000, 1),
                },
            )
        response["X-Request-ID"] = rid
        return response
