"""Settings read from environment variables. The defaults are safe for a server (no DEBUG, no
built-in secret key, local hosts only); development runs with DJANGO_DEBUG=1."""

import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from crux_app.jobs.cost import parse_prices
from crux_app.jobs.time_limits import parse_time_limits

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_seconds(name: str) -> dict[str, float]:
    """``key=seconds,key=seconds`` from the environment; anything else stops the settings."""
    found: dict[str, float] = {}
    for part in env_list(name, ""):
        key, _, value = (text.strip() for text in part.partition("="))
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not key or not 0 <= seconds <= 86_400:
            raise ImproperlyConfigured(f"{name}: '{part}' is not task_type=seconds (0-86400)")
        found[key] = seconds
    return found


# Safe by default: DEBUG only when asked for, and no server without a secret key of its own.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Outside development the workbench needs a long random "
            "secret key from the environment, e.g. DJANGO_SECRET_KEY=\"$(python -c 'import "
            "secrets; print(secrets.token_urlsafe(50))')\" (keep it secret and the same across "
            "restarts). For development only, DJANGO_DEBUG=1 runs with a built-in insecure key."
        )
    SECRET_KEY = "dev-only-insecure-key-change-me"  # DEBUG only, never served in production
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")

# Every absolute URL the app builds (Prolific study links, password-reset e-mails) starts with
# SITE_URL, never with the request's Host header.
SITE_URL = os.environ.get("SITE_URL", "http://localhost:8000").rstrip("/")
_site = urlsplit(SITE_URL)
if _site.scheme not in {"http", "https"} or not _site.netloc:
    raise ImproperlyConfigured(
        f"SITE_URL must be an http(s) URL like https://crux.example.org, not {SITE_URL!r}"
    )
SITE_ORIGIN = f"{_site.scheme}://{_site.netloc}"
CSRF_TRUSTED_ORIGINS = [SITE_ORIGIN]

# Behind TLS (DJANGO_SECURE=1): secure cookies, HSTS, HTTPS redirect, and the proxy's
# X-Forwarded-Proto header trusted (the proxy must set it and strip the client's).
SECURE = env_bool("DJANGO_SECURE", False)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE
SECURE_HSTS_SECONDS = 31_536_000 if SECURE else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
# HSTS preload (security.W021) is a commitment for the whole registrable domain that only its
# owner can make: it stays off, and check --deploy is not asked to recommend it.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

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
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Refuses bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (except a researcher's upload) in its
    # process_view, which runs before the CSRF check's, the first to parse POST.
    "crux_app.body_limit.RequestBodyLimitMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Failed logins (django-axes): after AXES_FAILURE_LIMIT failures for one username, or from one
# IP address, every login for it is refused for AXES_COOLOFF_TIME, the right password included;
# failures and lockouts are logged (logger "axes"). Only authenticate() calls that pass the
# request are checked: tests log in with client.login(request=HttpRequest(), ...).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/lockout.html"
AXES_ALLOWED_CORS_ORIGINS = SITE_ORIGIN
# The log names the username and address of each failure and lockout (never the password).
AXES_SENSITIVE_PARAMETERS: list[str] = []
# Behind a reverse proxy every request comes from the proxy's address: the throttle then reads
# the client's from the header the proxy sets (DJANGO_TRUSTED_PROXY_HEADER, a request.META
# name such as HTTP_X_FORWARDED_FOR), DJANGO_TRUSTED_PROXY_COUNT entries from its right
# (crux_app.client_address). Only set it when a proxy that writes that header fronts the site.
TRUSTED_PROXY_HEADER = os.environ.get("DJANGO_TRUSTED_PROXY_HEADER", "").strip()
TRUSTED_PROXY_COUNT = int(os.environ.get("DJANGO_TRUSTED_PROXY_COUNT", "1"))
if TRUSTED_PROXY_HEADER and not TRUSTED_PROXY_HEADER.startswith("HTTP_"):
    raise ImproperlyConfigured(
        "DJANGO_TRUSTED_PROXY_HEADER names a request header as Django's META key, e.g. "
        f"HTTP_X_FORWARDED_FOR or HTTP_X_REAL_IP, not {TRUSTED_PROXY_HEADER!r}"
    )
if TRUSTED_PROXY_COUNT < 1:
    raise ImproperlyConfigured("DJANGO_TRUSTED_PROXY_COUNT must be at least 1")
AXES_CLIENT_IP_CALLABLE = "crux_app.client_address.client_address"
# Prolific arrivals: at most this many new participants per campaign and minute (a study
# link is guessable; the campaign's places cap the total).
PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE = int(
    os.environ.get("PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE", "60")
)
if PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE < 1:
    raise ImproperlyConfigured("PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE must be at least 1")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

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

# Content-Security-Policy (django-csp): every script and asset is served from this site
# (htmx, plotly, static/js); no inline script, no remote origin. Inline styles stay allowed:
# plotly and htmx set them, and progress bars use style attributes.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Django's default body limits (2.5 MB of form fields, uploaded files over 2.5 MB spooled to
# disk). Request bodies over DATA_UPLOAD_MAX_MEMORY_SIZE are refused before parsing, except a
# researcher's upload (crux_app.views.upload), whose files stream to disk up to UPLOAD_MAX_BYTES.
DATA_UPLOAD_MAX_NUMBER_FILES = 10_000  # a folder upload sends one file per file of the folder
# Uploaded files wait here (one uuid folder per upload, 0700, files 0600) for the import job.
UPLOAD_DIR = Path(os.environ.get("UPLOAD_DIR", BASE_DIR / "var" / "uploads"))
UPLOAD_MAX_BYTES = int(os.environ.get("UPLOAD_MAX_BYTES", str(2 * 1024**3)))  # one upload, 2 GiB
# The files of a failed (or cancelled) import are kept this long for a retry, then swept.
UPLOAD_FAILED_RETENTION_DAYS = int(os.environ.get("UPLOAD_FAILED_RETENTION_DAYS", "30"))
if UPLOAD_MAX_BYTES < 1 or UPLOAD_FAILED_RETENTION_DAYS < 0:
    raise ImproperlyConfigured(
        "UPLOAD_MAX_BYTES must be at least 1 and UPLOAD_FAILED_RETENTION_DAYS at least 0"
    )

# Celery: Redis broker and result backend; queue `gpu` for model work, `cpu` for the rest.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "redis://127.0.0.1:6379/1")
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A job kind's task goes to the queue its kind declares (JobKind.queue).
CELERY_TASK_ROUTES = ("crux_app.jobs.routing.route_task",)
# Redis redelivers an unacknowledged task (its worker died) once it is older than the visibility
# timeout; a new worker restores such tasks at start and then every unacked_restore_interval
# seconds. Keep the timeout above the longest task: a live worker's task older than it would be
# handed to a second worker too (harmless for idempotent jobs, but wasted work). The worker
# tests set CELERY_VISIBILITY_TIMEOUT low to exercise redelivery.
_visibility_timeout = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": _visibility_timeout,
    "unacked_restore_interval": max(1, min(10, _visibility_timeout // 2)),
    "unacked_restore_throttle": 1,
}
# Zero-configuration demo without Redis (scripts/demo.sh): kombu's filesystem transport, with
# its folders under CELERY_FILESYSTEM_DIR (they must exist; the demo script creates them).
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = Path(os.environ.get("CELERY_FILESYSTEM_DIR", BASE_DIR / "var" / "celery"))
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "messages"),
        "data_folder_out": str(_broker_dir / "messages"),
        "control_folder": str(_broker_dir / "control"),
    }
# A job batch that raises is tried this many more times before it counts as failed.
JOB_BATCH_RETRIES = int(os.environ.get("JOB_BATCH_RETRIES", "2"))
# One job, many workers (crux_app.jobs.shards): a job's planned batches are cut into at most
# JOB_MAX_SHARDS shards that any worker of its queue claims; at most JOB_MAX_TASKS tasks are sent
# for one job (its first, plus one per further shard for the other workers).
JOB_MAX_SHARDS = int(os.environ.get("JOB_MAX_SHARDS", "64"))
JOB_MAX_TASKS = int(os.environ.get("JOB_MAX_TASKS", "16"))
# A running shard's worker renews its lease every JOB_LEASE_HEARTBEAT_SECONDS; a shard whose
# lease is older than JOB_LEASE_GRACE_SECONDS (its worker was killed) is taken over by another.
JOB_LEASE_HEARTBEAT_SECONDS = float(os.environ.get("JOB_LEASE_HEARTBEAT_SECONDS", "5"))
JOB_LEASE_GRACE_SECONDS = float(os.environ.get("JOB_LEASE_GRACE_SECONDS", "60"))
# Workers report themselves and sweep (the outbox, stalled shards, hard time limits) this often.
WORKER_HEARTBEAT_SECONDS = float(os.environ.get("WORKER_HEARTBEAT_SECONDS", "10"))
# Time limits of a job's attempt, from its start: at the soft one the job stops (failed, stored
# results kept, Retry resumes); at the hard one a worker that did not stop is abandoned (the job
# fails; a prefork worker's process is killed). JOB_TIME_LIMITS=kind=soft:hard,... per kind.
JOB_SOFT_TIME_LIMIT_SECONDS = float(os.environ.get("JOB_SOFT_TIME_LIMIT_SECONDS", "86400"))
JOB_HARD_TIME_LIMIT_SECONDS = float(os.environ.get("JOB_HARD_TIME_LIMIT_SECONDS", "87000"))
JOB_TIME_LIMITS = parse_time_limits(os.environ.get("JOB_TIME_LIMITS", ""))
if JOB_LEASE_GRACE_SECONDS < 2 * JOB_LEASE_HEARTBEAT_SECONDS or JOB_LEASE_HEARTBEAT_SECONDS <= 0:
    raise ImproperlyConfigured(
        "JOB_LEASE_GRACE_SECONDS must be at least twice JOB_LEASE_HEARTBEAT_SECONDS (> 0)"
    )
if not 0 < JOB_SOFT_TIME_LIMIT_SECONDS <= JOB_HARD_TIME_LIMIT_SECONDS:
    raise ImproperlyConfigured(
        "JOB_SOFT_TIME_LIMIT_SECONDS must be > 0 and at most JOB_HARD_TIME_LIMIT_SECONDS"
    )
if JOB_MAX_SHARDS < 1 or JOB_MAX_TASKS < 1 or WORKER_HEARTBEAT_SECONDS <= 0:
    raise ImproperlyConfigured("JOB_MAX_SHARDS, JOB_MAX_TASKS must be >= 1, heartbeat > 0")

# Derived tables (the leaderboard) are cached under each collection's data version
# (crux_app.data_version): an entry is never stale, only unused once the data changed. Redis,
# shared by the web processes, beside a Redis broker; each process's memory otherwise (the demo
# without Redis). CACHE_URL overrides: redis://host:port/db or locmem://.
CACHE_URL = os.environ.get(
    "CACHE_URL",
    "redis://127.0.0.1:6379/2" if CELERY_BROKER_URL.startswith("redis") else "locmem://",
)
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "crux",
        }
    }
elif CACHE_URL == "locmem://":
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    raise ImproperlyConfigured(
        f"CACHE_URL must be redis://host:port/db or locmem://, not {CACHE_URL!r}"
    )
# How long a derived table stays cached (seconds; a write replaces it sooner).
DERIVED_CACHE_SECONDS = int(os.environ.get("DERIVED_CACHE_SECONDS", str(24 * 3600)))

# Annotation quality control: an annotator whose median time per item is under the floor of
# the campaign's task type is flagged as speeding (campaign page, annotators export).
# ANNOTATION_SPEEDING_FLOOR_SECONDS="passage_rating=4,report_coverage=15" overrides floors.
ANNOTATION_SPEEDING_FLOOR_SECONDS = {
    "passage_rating": 3.0,
    "report_coverage": 10.0,
    "answer_equivalence": 2.0,
    "failure_category": 5.0,
    **env_seconds("ANNOTATION_SPEEDING_FLOOR_SECONDS"),
}

# Model ids: hub ids or local paths. Empty means the embedded offline default.
GENERATOR_MODEL = os.environ.get("GENERATOR_MODEL", "")
JUDGE_MODEL = os.environ.get("JUDGE_MODEL", "")
NLI_MODEL = os.environ.get("NLI_MODEL", "")
EMBED_MODEL = os.environ.get("EMBED_MODEL", "")
TOKENIZER_MODEL = os.environ.get("TOKENIZER_MODEL", "")
MODEL_CACHE_DIR = Path(os.environ.get("MODEL_CACHE_DIR", BASE_DIR / "var" / "models"))
MODEL_DEVICE = os.environ.get("MODEL_DEVICE", "")  # "" = CUDA when available, else CPU
# OpenAI-compatible model servers per role (vLLM, hosted APIs): when <ROLE>_API_BASE is set, the
# role's *_MODEL setting is the served model's name. Keys only from the environment.
GENERATOR_API_BASE = os.environ.get("GENERATOR_API_BASE", "")
GENERATOR_API_KEY = os.environ.get("GENERATOR_API_KEY", "")
JUDGE_API_BASE = os.environ.get("JUDGE_API_BASE", "")
JUDGE_API_KEY = os.environ.get("JUDGE_API_KEY", "")
NLI_API_BASE = os.environ.get("NLI_API_BASE", "")
NLI_API_KEY = os.environ.get("NLI_API_KEY", "")
MODEL_API_MAX_CONCURRENCY = int(os.environ.get("MODEL_API_MAX_CONCURRENCY", "8"))  # per worker
MODEL_API_TIMEOUT = float(os.environ.get("MODEL_API_TIMEOUT", "120"))  # seconds per request
MODEL_API_MAX_RETRIES = int(os.environ.get("MODEL_API_MAX_RETRIES", "4"))  # 429, 5xx, timeouts
# Money per million input / output tokens of served models, for the cost estimate shown before
# a job starts (crux_app.jobs.estimate): a JSON object, served model name -> [input, output],
# e.g. {"gpt-4o-mini": [0.15, 0.6]}. Unset: no money figure.
try:
    MODEL_PRICES = parse_prices(os.environ.get("MODEL_PRICES", ""))
except ValueError as error:
    raise ImproperlyConfigured(str(error)) from None
# CPU threads per model process; 0 keeps torch's default (one per core).
TORCH_NUM_THREADS = int(os.environ.get("TORCH_NUM_THREADS", "0"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

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
        "rest_framework.parsers.MultiPartParser",
        "rest_framework.parsers.FormParser",
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
}

# Webhooks (webhooks/): destinations that resolve to private, loopback, link-local or reserved
# addresses are refused unless WEBHOOKS_ALLOW_PRIVATE=1 (a lab network; the tests).
WEBHOOKS_ALLOW_PRIVATE = env_bool("WEBHOOKS_ALLOW_PRIVATE", False)
WEBHOOKS_TIMEOUT_SECONDS = min(float(os.environ.get("WEBHOOKS_TIMEOUT_SECONDS", "10")), 60.0)
WEBHOOKS_MAX_ATTEMPTS = int(os.environ.get("WEBHOOKS_MAX_ATTEMPTS", "6"))  # per series
WEBHOOKS_RETRY_BASE_SECONDS = float(os.environ.get("WEBHOOKS_RETRY_BASE_SECONDS", "30"))
