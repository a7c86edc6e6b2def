"""Requests made with an API token are throttled per token (DRF's throttle on Django's cache)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiToken

DEFAULT_RATE = "1200/min"


class TokenRateThrottle(SimpleRateThrottle):
    """At most ``API_TOKEN_THROTTLE_RATE`` requests per token (429 with Retry-After above it);
    browser sessions are not throttled here (the pages they mirror are not either)."""

    scope = "api_token"

    def get_rate(self) -> str:
        # Read per request (not once at import like DRF's rates), so a setting override holds.
        return getattr(settings, "API_TOKEN_THROTTLE_RATE", DEFAULT_RATE)

    def allow_request(self, request: Request, view: object) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if not isinstance(request.auth, ApiToken):
            return None
        # The digest, not the row id: ids repeat across databases that share one cache.
        return self.cache_format % {"scope": self.scope, "ident": request.auth.digest[:32]}
