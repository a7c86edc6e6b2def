"""Outgoing webhooks (``webhooks/``): which destinations, how long and how often."""

import os

from django.core.exceptions import ImproperlyConfigured

from .environment import env_bool

# Webhooks (webhooks/): destinations that resolve to private, loopback, link-local or reserved
# addresses are refused unless WEBHOOKS_ALLOW_PRIVATE=1 (a lab network; the tests).
WEBHOOKS_ALLOW_PRIVATE = env_bool("WEBHOOKS_ALLOW_PRIVATE", False)
WEBHOOKS_TIMEOUT_SECONDS = min(float(os.environ.get("WEBHOOKS_TIMEOUT_SECONDS", "10")), 60.0)
WEBHOOKS_MAX_ATTEMPTS = int(os.environ.get("WEBHOOKS_MAX_ATTEMPTS", "6"))  # per series
WEBHOOKS_RETRY_BASE_SECONDS = float(os.environ.get("WEBHOOKS_RETRY_BASE_SECONDS", "30"))
# Deliveries run on a queue of their own, so a slow receiver never holds up an import on the
# one-slot `cpu` worker; a worker must consume it (scripts/demo.sh: `-Q webhooks`).
WEBHOOKS_QUEUE = "webhooks"
# Celery beat runs the sweep (events of jobs finished unseen, stalled deliveries) this often.
WEBHOOKS_SWEEP_SECONDS = float(os.environ.get("WEBHOOKS_SWEEP_SECONDS", "60"))
if WEBHOOKS_MAX_ATTEMPTS < 1 or WEBHOOKS_TIMEOUT_SECONDS <= 0 or WEBHOOKS_SWEEP_SECONDS <= 0:
    raise ImproperlyConfigured(
        "WEBHOOKS_MAX_ATTEMPTS must be >= 1, WEBHOOKS_TIMEOUT_SECONDS and "
        "WEBHOOKS_SWEEP_SECONDS > 0"
    )
