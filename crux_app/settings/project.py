"""The Django project: its apps, middleware, URLs, templates, database, language, static
files and logging."""

import os

import dj_database_url

from .environment import BASE_DIR

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "csp",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "crux_app",
    "api",
    "webhooks",
    "operations",
    "annotation",
    "evaluation.backends",
    "evaluation.agreement",
    "evaluation.leaderboard",
    "evaluation.judge_report",
    "evaluation.crux",
    "evaluation.answers",
    "evaluation.seper",
    "evaluation.dense",
    "evaluation.scaar",
    "evaluation.reteval",
    "evaluation.nuggets",
]

MIDDLEWARE = [
    # First: /healthz, /readyz and /metrics, before the host check (probes come by address).
    "operations.middleware.OperationsEndpointsMiddleware",
    # A request id for every request (X-Request-ID), its log line and its metrics by view.
    "operations.middleware.RequestContextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # gzip for HTML and JSON (not static files, downloads, streams or secrets shown once):
    # after WhiteNoise, before every middleware that reads the body.
    "crux_app.response_compression.ResponseCompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Refuses bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (except a researcher's upload) in its
    # process_view, which runs before the CSRF check's, the first to parse POST.
    "crux_app.body_limit.RequestBodyLimitMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The audit trail's acting user, path and address for the request's writes.
    "crux_app.audit.middleware.AuditContextMiddleware",
    # Cache-Control: no-store on a logged-in account's pages and on every download.
    "crux_app.cache_headers.NoStoreMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: turns a login refused by the axes backend into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "crux_app.urls"
WSGI_APPLICATION = "crux_app.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "crux_app.roles.role_context",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/crux"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True


STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# plotly.js's cartesian bundle is static/plotly/ (never a CDN); static/plotly/README.md.
STATICFILES_DIRS = [BASE_DIR / "static"]
# `manage.py collectstatic` (setup.sh, demo.sh) writes content-hashed, gzipped copies that
# WhiteNoise serves compressed and cached for ten years; before it, pages name the source files
# and WhiteNoise serves them through the finders (crux_app.static_files).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "crux_app.static_files.CollectedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# LOGGING: settings/operations.py (LOG_FORMAT=json).
