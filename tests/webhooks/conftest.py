"""Webhook tests reach the receiver on 127.0.0.1: private destinations are allowed unless a
test switches it off; retries wait seconds, not minutes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.webhooks.receiver import Receiver


@pytest.fixture(autouse=True)
def webhook_settings(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_RETRY_BASE_SECONDS = 1.0
    settings.WEBHOOKS_TIMEOUT_SECONDS = 2.0
    settings.WEBHOOKS_MAX_ATTEMPTS = 4
    return settings


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver().start()
    yield server
    server.stop()
