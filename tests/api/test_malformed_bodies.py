"""Malformed bodies sent to every API endpoint that takes one: a JSON 4xx naming what is wrong,
never a 500 (tests/security/test_url_fuzz.py fuzzes query and form fields of every URL)."""

import json

import pytest
from django.urls import reverse

from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db

BODIES = [
    ("application/json", b"{"),
    ("application/json", b"[]"),
    ("application/json", b'"text"'),
    ("application/json", b"null"),
    ("application/json", b'{"name": {"a": [1, 2]}, "kind": [], "params": "x"}'),
    ("application/json", b'{"kind": "judge_answerability", "params": {"k": 1e400}}'),
    ("application/json", b'{"kind": "judge_answerability", "params": {"k": [[1]]}}'),
    ("application/json", b'{"items": [{"topic": null, "position": "x", "passage": 5}]}'),
    ("application/json", json.dumps({"name": "\x00", "collection": "\x00"}).encode()),
    ("application/json", b"\xff\xfe"),
    ("application/json", b'{"a": ' * 5000),
    ("multipart/form-data; boundary=zz", b"--zz\r\nbroken"),
    ("multipart/form-data", b"no boundary"),
    ("text/plain", b"hello"),
]


def _post_urls() -> list[str]:
    return [
        reverse("api-collections"),
        reverse("api-collection-jobs", args=["duc04"]),
        reverse("api-collection-imports", args=["duc04"]),
        reverse("api-campaigns"),
        reverse("api-exports"),
    ]


def test_no_malformed_body_gets_a_500(api):
    make_small_collection("duc04")
    failures = []
    for url in _post_urls():
        for content_type, body in BODIES:
            response = api.generic("POST", url, body, content_type=content_type)
            if response.status_code >= 500 or response.status_code < 400:
                failures.append(f"{url} {content_type} {body[:30]!r} -> {response.status_code}")
                continue
            if response["Content-Type"].startswith("application/json"):
                assert response.json()["detail"]
    assert not failures, "\n".join(failures)
