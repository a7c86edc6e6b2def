"""Requests made with an API token are throttled per token, counted atomically in Django's
cache (Redis ``INCR`` in production), so that concurrent connections cannot slip past it."""

from __future__ import annotations

import math

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiToken

DEFAULT_RATE = "1200/min"
# The rate's period is counted in this many slots; a request counts in its slot's counter.
SLOTS = 60


class TokenRateThrottle(SimpleRateThrottle):
    """At most ``API_TOKEN_THROTTLE_RATE`` requests per token in any period of the rate's
    length (429 with Retry-After above it); browser sessions are not throttled here (the pages
    they mirror are not either).

    DRF's own throttle reads a list of times, appends and writes it back: requests on parallel
    connections read the same list and all pass (1,289 of a 1,200/min limit passed with 8
    connections). Here each request increments the counter of its slot (``cache.incr`` is
    atomic: Redis INCR, or the local cache's lock) and passes when the slots of the last period
    and one more hold at most the limit; a refused request takes its count back. Concurrent
    requests each see their own count, so no more than the limit pass."""

    scope = "api_token"

    def get_rate(self) -> str:
        # Read per request (not once at import like DRF's rates), so a setting override holds.
        return getattr(settings, "API_TOKEN_THROTTLE_RATE", DEFAULT_RATE)

    def get_cache_key(self, request: Request, view: object) -> str | None:
        if not isinstance(request.auth, ApiToken):
            return None
        # The digest, not the row id: ids repeat across databases that share one cache.
        return self.cache_format % {"scope": self.scope, "ident": request.auth.digest[:32]}

    def allow_request(self, request: Request, view: object) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.retry_after: float | None = None
        key = self.get_cache_key(request, view)
        if key is None or self.rate is None:
            return True
        slot_s = self.duration / SLOTS
        now = self.timer()
        slot = math.floor(now / slot_s)
        # The current slot and SLOTS before it: a little more than one period, never less.
        keys = [f"{key}:{s}" for s in range(slot - SLOTS, slot + 1)]
        own = self._increment(keys[-1], self.duration + 2 * slot_s)
        earlier = self.cache.get_many(keys[:-1])
        counts = [earlier.get(k, 0) for k in keys[:-1]]
        if sum(counts) + own <= self.num_requests:
            return True
        self.cache.decr(keys[-1])  # a refused request does not count against later ones
        self.retry_after = self._wait(counts, slot, slot_s, now)
        return False

    def _increment(self, key: str, timeout: float) -> int:
        self.cache.add(key, 0, timeout=math.ceil(timeout))
        try:
            return self.cache.incr(key)
        except ValueError:  # the counter expired between add and incr
            self.cache.add(key, 0, timeout=math.ceil(timeout))
            return self.cache.incr(key)

    def _wait(self, counts: list[int], slot: int, slot_s: float, now: float) -> float:
        """Seconds until enough of the oldest slots leave the window for one request."""
        excess = sum(counts) + 1 - self.num_requests
        for index, count in enumerate(counts):
            excess -= count
            if excess <= 0:
                # Slot (slot - SLOTS + index) leaves the window when slot + index + 1 starts.
                return max((slot + index + 1) * slot_s - now, 0.0)
        return self.duration

    def wait(self) -> float | None:
        return self.retry_after
