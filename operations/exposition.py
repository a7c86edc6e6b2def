"""The text a ``/metrics`` scrape gets: this install's request metrics (every web process's,
summed, under PROMETHEUS_MULTIPROC_DIR) followed by the database's gauges."""

from __future__ import annotations

import os

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess

from .stored_metrics import StoredMetricsCollector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _process_registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return registry
    return REGISTRY


def scrape() -> bytes:
    """The exposition text of one scrape."""
    stored = CollectorRegistry(auto_describe=False)
    stored.register(StoredMetricsCollector())
    return generate_latest(_process_registry()) + generate_latest(stored)
