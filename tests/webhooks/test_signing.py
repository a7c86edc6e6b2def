"""Signatures: HMAC-SHA256 over "<timestamp>.<body>", checked against a value computed by hand
(``printf '1700000000.{"type":"job.succeeded"}' | openssl dgst -sha256 -hmac SECRET``)."""

import time
from pathlib import Path

from webhooks.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, signature, signed_headers, verify

SECRET = "whsec-test-0123456789"
BODY = b'{"type":"job.succeeded"}'
EXPECTED = "sha256=6397adc65222f8e1e627acd760fd97e0960162612d5f75207ed7d664366371a1"


def test_signature_is_hmac_sha256_of_timestamp_dot_body():
    assert signature(SECRET, 1700000000, BODY) == EXPECTED


def test_signed_headers_carry_timestamp_and_signature():
    headers = signed_headers(SECRET, BODY, timestamp=1700000000)
    assert headers == {TIMESTAMP_HEADER: "1700000000", SIGNATURE_HEADER: EXPECTED}


def test_verify_accepts_within_tolerance_and_refuses_the_rest():
    now = 1700000000 + 299
    assert verify(SECRET, BODY, "1700000000", EXPECTED, tolerance_s=300, now=now)
    # A replay later than the tolerance, another secret, another body, another timestamp.
    assert not verify(SECRET, BODY, "1700000000", EXPECTED, tolerance_s=300, now=now + 2)
    assert not verify("other-secret", BODY, "1700000000", EXPECTED, now=1700000000)
    assert not verify(SECRET, BODY + b" ", "1700000000", EXPECTED, now=1700000000)
    assert not verify(SECRET, BODY, "1700000001", EXPECTED, now=1700000000)
    # Garbage in the timestamp header is refused, never an exception.
    for bad in ("", "-1", "1e9", "١٧٠٠", "17000000x"):
        assert not verify(SECRET, BODY, bad, EXPECTED, now=1700000000)


def test_the_readme_snippet_verifies_a_signature():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Webhooks", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict = {}
    exec(snippet, scope)  # noqa: S102 - the README's own example
    timestamp = str(int(time.time()))
    good = signature(SECRET, int(timestamp), BODY)
    assert scope["verify"](SECRET, BODY, timestamp, good)
    assert not scope["verify"](SECRET, BODY + b"x", timestamp, good)
    assert not scope["verify"](SECRET, BODY, str(int(timestamp) - 301), good)
