"""HMAC-SHA256 signatures of webhook bodies, over ``"<timestamp>.<body>"`` so that a captured
request cannot be replayed later with a new timestamp (stdlib only).

A receiver recomputes the signature from the raw body and the timestamp header, compares it in
constant time and refuses a timestamp further than its tolerance from its own clock
(``verify``; the README shows the same check as a snippet).
"""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-Crux-Signature"
TIMESTAMP_HEADER = "X-Crux-Timestamp"
EVENT_HEADER = "X-Crux-Event"
DELIVERY_HEADER = "X-Crux-Delivery"
SCHEME = "sha256"
DEFAULT_TOLERANCE_S = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """``sha256=<hex>``: the HMAC-SHA256, keyed with ``secret``, of ``b"<timestamp>." + body``."""
    signed = str(timestamp).encode("ascii") + b"." + body
    digest = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    return f"{SCHEME}={digest}"


def signed_headers(secret: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """The timestamp and signature headers of ``body`` (timestamp: now, in Unix seconds)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(secret, timestamp, body),
    }


def verify(
    secret: str,
    body: bytes,
    timestamp_header: str,
    signature_header: str,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
    now: float | None = None,
) -> bool:
    """Whether the headers sign ``body`` with ``secret`` within ``tolerance_s`` of ``now``."""
    if not timestamp_header.isascii() or not timestamp_header.isdigit():
        return False
    timestamp = int(timestamp_header)
    now = time.time() if now is None else now
    if abs(now - timestamp) > tolerance_s:
        return False
    return hmac.compare_digest(signature(secret, timestamp, body), signature_header)
