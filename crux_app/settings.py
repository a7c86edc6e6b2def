"""Settings read from environment variables, with defaults that work on the project machines."""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.lower() in {"1", "true", "yes", "on"}


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-change-me")
DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "crux_app",
    "annotation",
    "evaluation.backends",
    "evaluation.agreement",
    "evaluation.leaderboard",
    "evaluation.crux",
    "evaluation.answers",
    "evaluation.seper",
    "evaluation.dense",
    "evaluation.scaar",
    "evaluation.reteval",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
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
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True


def _plotly_js_dir() -> str:
    import plotly

    return str(Path(plotly.__file__).parent / "package_data")


STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# plotly's JS is served from the installed package, never from a CDN.
STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", _plotly_js_dir())]
WHITENOISE_USE_FINDERS = True

FILE_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 200 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 10_000
# Uploaded files wait here (one uuid folder per upload) for the import job's worker.
UPLOAD_DIR = Path(os.environ.get("UPLOAD_DIR", BASE_DIR / "var" / "uploads"))

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
CELERY_TASK_ROUTES = {"*.gpu_*": {"queue": "gpu"}}
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

# Model ids: hub ids or local paths. Empty means the embedded offline default.
GENERATOR_MODEL = os.environ.get("GENERATOR_MODEL", "")
JUDGE_MODEL = os.environ.get("JUDGE_MODEL", "")
NLI_MODEL = os.environ.get("NLI_MODEL", "")
EMBED_MODEL = os.environ.get("EMBED_MODEL", "")
TOKENIZER_MODEL = os.environ.get("TOKENIZER_MODEL", "")
MODEL_CACHE_DIR = Path(os.environ.get("MODEL_CACHE_DIR", BASE_DIR / "var" / "models"))
MODEL_DEVICE = os.environ.get("MODEL_DEVICE", "")  # "" = CUDA when available, else CPU
# CPU threads per model process; 0 keeps torch's default (one per core).
TORCH_NUM_THREADS = int(os.environ.get("TORCH_NUM_THREADS", "0"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
