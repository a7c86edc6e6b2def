"""Operations (``operations/``): who may read /metrics, and the log format.

The middleware of ``operations`` is placed in project.py's MIDDLEWARE; LOGGING is made here.
"""

import ipaddress
import os

from django.core.exceptions import ImproperlyConfigured

from .environment import env_list

# /metrics answers clients in these networks (comma-separated CIDRs; behind a proxy the client's
# address is read as for the login throttle, DJANGO_TRUSTED_PROXY_HEADER) and any client that
# sends "Authorization: Bearer $METRICS_TOKEN" (unset: no token is accepted).
try:
    METRICS_ALLOWED_NETWORKS = [
        ipaddress.ip_network(cidr, strict=False)
        for cidr in env_list("METRICS_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128")
    ]
except ValueError as error:
    raise ImproperlyConfigured(f"METRICS_ALLOWED_NETWORKS: {error}") from None
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")

# LOG_FORMAT=json: one JSON object per line (operations.json_logs), with the request id and the
# job id where there is one; request and job start/finish lines at INFO. Else plain text.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text").lower()
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}")
_LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "operations.log_context.LogContextFilter"}},
    "formatters": {
        "json": {"()": "operations.json_logs.JsonFormatter"},
        "text": {"format": "%(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["context"],
            "formatter": LOG_FORMAT,
        }
    },
    "root": {"handlers": ["console"], "level": _LOG_LEVEL},
    # Request and job events are INFO: shown in JSON mode whatever LOG_LEVEL says.
    "loggers": {
        name: {"level": "INFO" if LOG_FORMAT == "json" else _LOG_LEVEL}
        for name in ("crux.requests", "crux.jobs")
    },
}
# A Celery worker replaces the root logger's handlers with its own unless told not to; in JSON
# mode the worker's lines go through LOGGING like the web's.
CELERY_WORKER_HIJACK_ROOT_LOGGER = LOG_FORMAT != "json"
