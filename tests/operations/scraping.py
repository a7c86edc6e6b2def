"""Reading one sample out of a /metrics scrape, for the operations tests."""

from __future__ import annotations

from django.test import Client
from prometheus_client.parser import text_string_to_metric_families


def scrape(client: Client, **extra: str) -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted labels): value} of one scrape from 127.0.0.1."""
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def sample(samples: dict, name: str, **labels: str) -> float:
    """The sample's value; 0 when it is not exposed (yet)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)
