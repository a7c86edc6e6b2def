"""The REST API (``api/``): authentication, throttling, exports and the OpenAPI schema."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .environment import BASE_DIR

# REST API (api/, /api/v1/): personal API tokens (Authorization: Bearer) or the browser's
# session; JSON only; errors as {"detail", "errors"}; token requests throttled per token on the
# default cache (API_TOKEN_THROTTLE_RATE, e.g. "1200/min").
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.IsResearcher"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.TokenRateThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.SafeJSONParser",
        "api.parsers.SafeMultiPartParser",
        "api.parsers.SafeFormParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
API_TOKEN_THROTTLE_RATE = os.environ.get("API_TOKEN_THROTTLE_RATE", "1200/min")
# Asynchronous exports (POST /api/v1/exports/): the files a worker writes, and how long their
# download link lives (then the file is deleted).
API_EXPORT_DIR = Path(os.environ.get("API_EXPORT_DIR", BASE_DIR / "var" / "exports"))
API_EXPORT_TTL_SECONDS = int(os.environ.get("API_EXPORT_TTL_SECONDS", str(24 * 3600)))
if API_EXPORT_TTL_SECONDS < 1:
    raise ImproperlyConfigured("API_EXPORT_TTL_SECONDS must be at least 1")
SPECTACULAR_SETTINGS = {
    "TITLE": "CRUX workbench API",
    "DESCRIPTION": "Collections, imports, jobs, results and campaigns of the CRUX workbench. "
    "Send a personal API token as `Authorization: Bearer <token>`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from drf-spectacular-sidecar's static files: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # The job start's body is typed per kind from the declared parameters (api/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.typed_job_start",
    ],
}
