"""The cache of derived tables (Redis beside a Redis broker, else each process's memory)."""

import os

from django.core.exceptions import ImproperlyConfigured

from .jobs import CELERY_BROKER_URL

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
