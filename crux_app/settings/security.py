"""Who may reach the site and how: debug and the secret key, hosts and the site's URL, TLS,
passwords and the failed-login throttle behind a proxy, login URLs and the
Content-Security-Policy."""

import os
from datetime import timedelta
from urllib.parse import urlsplit

from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from .environment import env_bool, env_list

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
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

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
