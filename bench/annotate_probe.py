"""The annotation bench's probe: one annotator's requests, one at a time, in this process.

Django's test client sends a probe annotator's workspace open, then ``cycles`` rounds of the
next-item prefetch, the submit and the floor page (a page that needs a login and reads
nothing else) to the same database as the load. It reports the queries each request runs
(session and account included; the second round, so that one-off work such as creating the
annotator's judge is left out) and their latency with no other client of this bench: the
cost of a request itself, beside the floor's, which the machine's other load cannot fake.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import numpy as np

ASSIGNMENT = re.compile(r'data-assignment="(\d+)"')


def probe(campaign, slug: str, floor_path: str, cycles: int) -> list[str]:
    """Lines to print: queries per request, then p50/p95 of each request kind."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from annotation.accounts import invite_annotator

    user_model = get_user_model()
    user = user_model.objects.filter(username="bench-probe").first()
    if user is None:
        user = user_model(username="bench-probe")
        user.set_unusable_password()
        user.save()
    invite_annotator(campaign, user.username)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    htmx = {"HTTP_HX_REQUEST": "true"}
    queries: dict[str, int] = {}
    times: dict[str, list[float]] = {"floor": [], "next": [], "submit": []}

    def send(name: str, request: Callable) -> str:
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = request()
            elapsed = 1000 * (time.perf_counter() - started)
        if response.status_code != 200:
            raise SystemExit(f"probe {name}: HTTP {response.status_code}")
        queries[name] = len(captured)
        if name in times:
            times[name].append(elapsed)
        return response.content.decode()

    current = ASSIGNMENT.search(send("workspace", lambda: client.get(f"/annotate/{slug}/"))).group(
        1
    )
    form = {"rating": "3", "rationale": "", "time_spent_ms": "1500"}
    for n in range(max(2, cycles + 1)):
        prefetch, url = {"after": current}, f"/annotate/{slug}/items/{current}/submit/"
        page = send("next", lambda p=prefetch: client.get(f"/annotate/{slug}/prefetch/", p, **htmx))
        send("submit", lambda u=url: client.post(u, form, **htmx))
        send("floor", lambda: client.get(floor_path))
        current = ASSIGNMENT.search(page).group(1)
        if n == 0:  # the first round creates the probe's judge: not what a request costs
            for values in times.values():
                values.clear()
    lines = ["queries per request: " + ", ".join(f"{k} {v}" for k, v in queries.items())]
    for name, values in times.items():
        p50, p95 = np.percentile(values, [50, 95])
        lines.append(f"one client, in-process, {name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    return lines
