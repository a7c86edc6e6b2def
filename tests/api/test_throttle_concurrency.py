"""The per-token throttle holds under parallel connections (issue 34, section 5: 1,289 of a
1,200/min limit passed with 8 connections): counted in Redis, 8 threads sending at once get
exactly the limit through, and a refused request says when to come back."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from django.db import connection

from api.tokens import issue_token

from .conftest import TokenClient

# The worker tests' Redis (a database of their own), so nothing here touches a shared cache.
REDIS_URL = os.environ.get("TEST_WORKER_RESULT_URL", "redis://127.0.0.1:6379/15")
THREADS = 8
PER_THREAD = 25
LIMIT = 60


@pytest.fixture
def redis_cache(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"throttle-test-{os.getpid()}",
        }
    }
    from django.core.cache import cache

    cache.clear()
    yield cache
    cache.clear()


@pytest.mark.django_db(transaction=True)
def test_parallel_connections_get_exactly_the_limit_through(researcher, redis_cache, settings):
    settings.API_TOKEN_THROTTLE_RATE = f"{LIMIT}/hour"
    token = issue_token(researcher, "parallel")[1]
    start = Barrier(THREADS)

    def hammer(_: int) -> list[tuple[int, str | None]]:
        client = TokenClient(token)
        start.wait()
        try:
            out = []
            for _ in range(PER_THREAD):
                response = client.get("/api/v1/collections/")
                out.append((response.status_code, response.headers.get("Retry-After")))
            return out
        finally:
            connection.close()

    with ThreadPoolExecutor(THREADS) as pool:
        results = [r for batch in pool.map(hammer, range(THREADS)) for r in batch]
    statuses = [status for status, _ in results]
    assert statuses.count(200) == LIMIT, statuses.count(200)
    assert statuses.count(429) == THREADS * PER_THREAD - LIMIT
    waits = [int(after) for status, after in results if status == 429]
    assert all(0 < wait <= 3600 for wait in waits), waits[:5]
