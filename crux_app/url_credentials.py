"""Credentials written into URLs (``http://user:password@host``) never reach a page or a log.

A model server's address (``*_API_BASE``) may carry a user and password; every message that
names a server URL, and every error text stored on a job, goes through ``mask_credentials``.
"""

from __future__ import annotations

import re

MASK = "***"
# scheme://userinfo@ — userinfo runs to the last "@" before the host (a password may hold an
# unescaped "@"), never across "/", whitespace, "?" or "#".
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s?#@]*(?:@[^/\s?#@]*)*@")


def mask_credentials(text: str) -> str:
    """``text`` with the user and password of every URL in it replaced by ``***``."""
    return _USERINFO.sub(lambda m: f"{m.group('scheme')}{MASK}@", text)
