"""Outgoing webhooks (``webhooks/``): which destinations, how long and how often."""

import os

from .environment import env_bool

# Webhooks (webhooks/): destinations that resolve to private, loopback, link-local or reserved
# addresses are refused unless WEBHOOKS_ALLOW_PRIVATE=1 (a lab network; the tests).
WEBHOOKS_ALLOW_PRIVATE = env_bool("WEBHOOKS_ALLOW_PRIVATE", False)
WEBHOOKS_TIMEOUT_SECONDS = min(float(os.environ.get("WEBHOOKS_TIMEOUT_SECONDS", "10")), 60.0)
WEBHOOKS_MAX_ATTEMPTS = int(os.environ.get("WEBHOOKS_MAX_ATTEMPTS", "6"))  # per series
WEBHOOKS_RETRY_BASE_SECONDS = float(os.environ.get("WEBHOOKS_RETRY_BASE_SECONDS", "30"))
