"""The web processes' request counters and latency histograms (prometheus-client).

Each process counts its own requests; with PROMETHEUS_MULTIPROC_DIR set (the demo and the
image set it for gunicorn's workers) prometheus-client keeps them in files there, and a scrape
of any worker sums every worker's (``exposition``).
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

# Seconds; pages are mostly well under a second, exports and big tables take longer.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter(
    "crux_http_requests",
    "HTTP requests answered, by view (URL name), method and status",
    ["view", "method", "status"],
)
LATENCY = Histogram(
    "crux_http_request_duration_seconds",
    "Time to answer an HTTP request, by view (URL name) and method",
    ["view", "method"],
    buckets=LATENCY_BUCKETS,
)
UNRESOLVED_VIEW = "<unresolved>"  # a path no URL pattern matched (a 404), kept as one label


def record_request(view: str, method: str, status: int, seconds: float) -> None:
    """Count one answered request and its latency."""
    method = method if method in {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} else "OTHER"
    REQUESTS.labels(view, method, str(status)).inc()
    LATENCY.labels(view, method).observe(seconds)
