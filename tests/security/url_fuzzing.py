"""The URL fuzz's walker: requests with valid ids, garbage in the path, in the query parameters
a view reads (recorded on the request's QueryDicts), in form fields and in JSON bodies; each
failure (a 5xx, a crash, a slow answer, or a forbidden text in the body) is one finding."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from unittest import mock
from urllib.parse import unquote, urlencode

from django import forms
from django.db import transaction
from django.http import QueryDict
from django.test import Client
from django.utils.datastructures import MultiValueDict

from tests.security.url_patterns import Route

SLOW_S = 2.0

# Query parameters the pages read (and some they do not).
QUERY_NAMES = [
    "k", "tau", "judge", "run", "result", "after", "topic", "page", "sort", "order", "format",
    "campaign", "resamples", "max_disagreements", "qrels_source", "missing_as_zero", "sq",
    "passage", "items", "annotator", "ks", "system", "output", "score", "cluster", "response",
    "i", "j", "kind", "answer", "rating", "time_spent_ms", "next", "action",
    "PROLIFIC_PID", "STUDY_ID", "SESSION_ID",
]  # fmt: skip

# Every parameter a view reads gets each of these alone: unicode digits int() refuses, a
# number past every bound (and past bigint), a NUL, more digits than int() converts, and JSON
# text (for fields parsed as JSON) holding a lone surrogate or an integer json.loads refuses.
BIG_JSON_INT = "9" * 4301  # one digit past int()'s limit, which json.loads hits too
HOT = [
    "²", str(10**30), "1000000000", "1\x00", "9" * 5000, '["\\ud800"]', f"[{BIG_JSON_INT}]",
]  # fmt: skip
# The same in JSON bodies (the API's), where a string can hold a lone surrogate and a number
# can be an integer literal of any length (``BigInt``).
JSON_HOT: list[object] = ["\ud800", "a\x00b", "²", "9" * 5000, "<big>", ["\ud800"]]
# Values that pass the usual checks, so that one hot field reaches the service behind them.
VALID_BY_NAME = {
    "rating": "3", "option": "A", "time_spent_ms": "100", "name": "fuzz name",
    "rationale_start": "0", "rationale_end": "1", "format": "jsonl", "kind": "judge",
}  # fmt: skip
GARBAGE = [
    "abc", "-1", "0", str(2**63), "٣", "\x00", "1e9", "1.5", "nan", "inf", "-inf", " ", "",
    "%", "'\"<>&", "x" * 5000, "1_000", "0x10", "+5", " 7 ", "null", "true", "[]", "{}",
    "../..", "😀", "oracle\x00",
]  # fmt: skip
VALID_LIKE = [
    "1", "2", "3", "5", "10", "oracle", "json", "csv", "html", "page", "asc", "desc", "run",
    "yes", "no", "on", "bm25", "smollm", "collection", "all", "raw",
]  # fmt: skip

# Path values the view gets (past bigint, past every id) and ones the route's converter refuses
# (a 404 from the resolver).
INT_GARBAGE = [str(10**30), str(2**63), "0", "99999999", "abc", "-1", "%C2%B2", "%00"]
STR_GARBAGE = ["x" * 300, "no-such-thing", "%00", "%C2%B2", "..", "a%2Fb"]
GROUP_SIZE = 6  # names not read by the view, per request
PROBE = "fuzz-probe"


def form_field_names() -> list[str]:
    """Field names of every form of the project's apps."""
    names: set[str] = set()
    stack = list(forms.Form.__subclasses__())
    while stack:
        cls = stack.pop()
        stack += cls.__subclasses__()
        if cls.__module__.split(".")[0] in ("crux_app", "annotation", "evaluation"):
            names.update(cls.base_fields)
    return sorted(names)


@contextmanager
def recording_reads() -> Iterator[set[str]]:
    """The keys looked up on any QueryDict (request.GET, request.POST, their copies) inside."""
    read: set[str] = set()
    patches = []
    for name in ("get", "getlist", "__getitem__", "__contains__"):
        original = getattr(MultiValueDict, name)

        def recording(self, key, *args, _original=original, **kwargs):
            if isinstance(self, QueryDict) and isinstance(key, str):
                read.add(key)
            return _original(self, key, *args, **kwargs)

        patches.append(mock.patch.object(MultiValueDict, name, recording))
    for patch in patches:
        patch.start()
    try:
        yield read
    finally:
        for patch in patches:
            patch.stop()


@dataclass
class Fuzz:
    rng: random.Random
    client: Client
    user: str
    # Texts no answer to this account may hold (another workspace's names), unless the
    # request itself carried them (a 404 may echo the name asked for).
    secrets: tuple[str, ...] = ()
    failures: list[str] = field(default_factory=list)
    requests: int = 0

    def send_json(self, url: str, body: dict[str, object]) -> None:
        """POST ``body`` as JSON; ``"<big>"`` is written as a ``BIG_JSON_INT`` literal."""
        text = json.dumps(body).replace('"<big>"', BIG_JSON_INT)
        self.send("post", url, text, content_type="application/json")

    def send(
        self,
        method: str,
        url: str,
        data: dict[str, str] | str,
        htmx: bool = False,
        content_type: str | None = None,
    ) -> None:
        headers = {"HX-Request": "true"} if htmx else {}
        if method in ("put", "patch", "delete") and not isinstance(data, str):
            data, content_type = json.dumps(data), "application/json"  # the API's bodies
        extra = {"content_type": content_type} if content_type else {}
        where = f"{self.user} {method.upper()} {url}"
        self.requests += 1
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                # Each request in a savepoint rolled back after it: a database error in one
                # request cannot poison the next, and every request sees the same seed.
                with transaction.atomic():
                    response = getattr(self.client, method)(url, data, headers=headers, **extra)
                    transaction.set_rollback(True)
            except Exception as error:  # noqa: BLE001 - every crash is one finding
                lines = str(error).strip().splitlines() or [""]
                self._fail(where, f"{type(error).__name__}: {lines[0][:160]}", method, data)
                return
            elapsed = time.perf_counter() - started
            if response.status_code >= 500:
                self._fail(where, str(response.status_code), method, data)
                return
            if leaked := self._leaked(response, url, data):
                self._fail(where, f"{response.status_code} shows {leaked!r}", method, data)
                return
            if elapsed <= SLOW_S:
                return
            if attempt == 2:  # slow twice: not a hiccup of the machine
                self._fail(where, f"{elapsed:.1f} s", method, data)

    def _leaked(self, response, url: str, data: dict[str, str] | str) -> str | None:  # noqa: ANN001
        if not self.secrets or getattr(response, "streaming", False):
            return None
        body = response.content.decode(errors="replace")
        asked = unquote(url) + (data if isinstance(data, str) else " ".join(data.values()))
        return next((s for s in self.secrets if s in body and s not in asked), None)

    def _fail(self, where: str, found: str, method: str, data: dict[str, str] | str) -> None:
        if isinstance(data, str):
            sent = data.encode("ascii", "backslashreplace").decode()[:300]
        else:
            sent = urlencode({k: v[:60] for k, v in data.items()})
        self.failures.append(f"{where} -> {found} | {method} data: {sent[:300]}")


def walk(
    fuzz: Fuzz,
    routes: list[Route],
    worlds: list[dict[str, str]],
    valid_like: list[str],
    names: list[str],
    deep: bool,
) -> None:
    """Shallow: each route once with valid ids, once with garbage in the path and once with
    garbage in two parameters. Deep: valid ids of every seeded collection, garbage path values,
    every ``HOT`` value in each parameter the view reads, the other names a few at a time,
    and random form fields of every form, garbage and valid-looking mixed."""
    rng = fuzz.rng
    for route in routes:
        # method -> parameter name -> the worlds whose page read it
        read: dict[str, dict[str, list[dict[str, str]]]] = {}
        for method in route.methods:
            read[method] = {}
            # Valid ids of each collection (of the first only, shallow) and one unknown
            # parameter: a view may read nothing from an empty query.
            for world in worlds if deep else worlds[:1]:
                with recording_reads() as keys:
                    fuzz.send(method, route.path(world), {PROBE: "1"})
                for key in sorted(keys - {"csrfmiddlewaretoken", PROBE}):
                    read[method].setdefault(key, []).append(world)
        for name, converter, _ in route.params():  # garbage in the path
            bad_values = INT_GARBAGE if converter == "int" else STR_GARBAGE
            for bad in bad_values[:2] + rng.sample(bad_values[2:], 1) if deep else bad_values[:1]:
                url = route.path(rng.choice(worlds), **{name: bad})
                fuzz.send(route.methods[0], url, {}, htmx=rng.random() < 0.3)
        for method in route.methods:
            unread = [n for n in QUERY_NAMES if n not in read[method]]
            shuffled = rng.sample(unread, len(unread))
            groups = [shuffled[i : i + GROUP_SIZE] for i in range(0, len(shuffled), GROUP_SIZE)]
            if not deep:
                data = {n: rng.choice(HOT + GARBAGE) for n in rng.sample(QUERY_NAMES, 2)}
                fuzz.send(method, route.path(worlds[0]), data)
                continue
            for name, readers in read[method].items():
                for value in [*HOT, rng.choice(GARBAGE)]:
                    url = route.path(rng.choice(readers))
                    fuzz.send(method, url, {name: value}, htmx=rng.random() < 0.3)
            for group in groups:
                data = {name: rng.choice(HOT + GARBAGE) for name in group}
                fuzz.send(method, route.path(rng.choice(worlds)), data, htmx=rng.random() < 0.3)
            if method == "post" and route.route.startswith("api/"):
                _send_json_bodies(fuzz, route, rng.choice(worlds), sorted(read[method]), names)
            for size in (rng.randint(2, 10), len(names)):  # form fields, every name at once
                data = {
                    n: rng.choice(HOT + GARBAGE) if rng.random() < 0.7 else rng.choice(valid_like)
                    for n in rng.sample(names, size)
                }
                fuzz.send(method, route.path(rng.choice(worlds)), data, htmx=rng.random() < 0.3)


def _send_json_bodies(
    fuzz: Fuzz, route: Route, world: dict[str, str], read: list[str] | set[str], names: list[str]
) -> None:
    """Each ``JSON_HOT`` value in each field the view reads, alone and among valid-looking
    values of the other fields (so it passes their checks and reaches the service), and in
    every known name at once. A view reads some fields only once others are valid (a
    rationale after the rating): valid-looking bodies are sent until it reads no new name."""
    url = route.path(world)
    read = set(read)
    for _ in range(3):
        with recording_reads() as keys:
            fuzz.send("post", url, {name: VALID_BY_NAME.get(name, "1") for name in sorted(read)})
        new = keys - read - {"csrfmiddlewaretoken", PROBE}
        if not new:
            break
        read |= new
    read = sorted(read)
    valid = {name: VALID_BY_NAME.get(name, "1") for name in read}
    for value in JSON_HOT:
        for name in read:
            fuzz.send_json(url, {name: value})
            fuzz.send_json(url, {**valid, name: value})
        fuzz.send_json(url, dict.fromkeys(names, value))
