"""Every URL of the site, with valid and garbage path parameters and garbage in the query
parameters and form fields, as anonymous, annotator and researcher: no response is a 5xx and
none takes longer than ``SLOW_S``.

The URL patterns are read from the resolver, so a new page is fuzzed without changing this
file; a path parameter is filled from the static segment before it (``collections/<pk>`` a
collection, ``topics/<pk>`` a topic of that collection, ...). A first request with valid ids
records which parameters the view reads (``get``/``getlist``/``[]``/``in`` on the request's
QueryDicts, which is also how forms read them); each of those then gets every ``HOT`` value
alone, and the other known names get garbage a few at a time. The rest is sampled with a fixed
seed (``URL_FUZZ_SEED`` changes it); every failure of one run is reported together.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from unittest import mock
from urllib.parse import quote, urlencode

import pytest
from django import forms
from django.db import transaction
from django.http import QueryDict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.datastructures import MultiValueDict

from annotation import queue
from annotation.exports import platform_format
from annotation.review_campaigns import create_review_campaign
from annotation.review_selection import QueueChoice
from annotation.task_types import PASSAGE_RATING
from annotation.views.campaign_payment import FILES as PAYMENT_FILES
from crux_app.models import Collection, GeneratedOutput, Job, Topic
from evaluation.scaar.models import ScaarAnalysis
from evaluation.seper.job import run_seper_job
from tests.annotation.campaign_data import make_campaign
from tests.annotation.review_data import disagreement_collection
from tests.crux_app.factories import make_small_collection
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job
from webhooks.events import send_test_event
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db

SEED = int(os.environ.get("URL_FUZZ_SEED", "1505"))
PARTS = 4  # the routes in four tests of every fourth route each
SLOW_S = 2.0
SKIPPED_PREFIXES = ("admin/", "accounts/")  # Django's own views

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

PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
SEGMENT_KIND = {
    "collections": "collection",
    "topics": "topic",
    "jobs": "job",
    "campaigns": "campaign",
    "items": "assignment",
    "answers": "analysis",
    "annotate": "slug",
    "prolific": "slug",
    "export": "fmt",
    "webhooks": "webhook",
    "deliveries": "delivery",
    "reviews": "review_campaign",
    "payment": "payment_file",  # campaigns/<pk>/payment/<name>.csv
}
# Reviewers' pages name a review campaign by slug and its items by primary key.
REVIEW_SEGMENT_KIND = {"review": "review_slug", "items": "review_item"}
# The REST API (/api/v1/) names collections, topics and campaigns by name, id and slug.
API_SEGMENT_KIND = {
    "collections": "collection_name",
    "topics": "topic_name",
    "campaigns": "slug",
    "jobs": "job",
    "exports": "job",  # an export's download, by its job's id
    "assignments": "assignment",
    "review-campaigns": "review_slug",
}
# Under a review campaign, /items/<pk>/ is one of its review items, not an assignment.
API_REVIEW_SEGMENT_KIND = {**API_SEGMENT_KIND, "items": "review_item"}


@dataclass(frozen=True)
class Route:
    route: str
    name: str
    methods: tuple[str, ...]

    def params(self) -> list[tuple[str, str, str]]:
        """(name, converter, kind of seeded object) of each path parameter, in order."""
        out, previous = [], ""
        for segment in self.route.strip("/").split("/"):
            # A parameter may fill a whole segment (``<int:pk>``) or sit inside one
            # (``<str:name>.csv``); either way its kind comes from the static segment before.
            matches = list(PARAM.finditer(segment))
            if not matches:
                previous = segment
                continue
            kinds = (
                (
                    API_REVIEW_SEGMENT_KIND
                    if "/review-campaigns/" in self.route
                    else API_SEGMENT_KIND
                )
                if self.route.startswith("api/")
                else REVIEW_SEGMENT_KIND
                if self.route.startswith("review/")
                else SEGMENT_KIND
            )
            kind = kinds.get(previous) or SEGMENT_KIND.get(previous)
            assert kind, f"{self.name}: no seeded object for a parameter after '{previous}/'"
            out += [(m["name"], m["converter"] or "str", kind) for m in matches]
        return out

    def url(self, values: dict[str, str]) -> str:
        return "/" + PARAM.sub(lambda m: values[m["name"]], self.route)


def _routes(patterns, prefix: str = "") -> list[Route]:
    routes = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            routes += _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            if route.startswith(SKIPPED_PREFIXES):
                continue
            view = getattr(pattern.callback, "view_class", None)
            methods = ("get", "post")
            if view is not None:
                methods = tuple(m for m in methods if hasattr(view, m))
            routes.append(Route(route, pattern.name or route, methods))
    return routes


def _form_field_names() -> list[str]:
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
def _recording_reads() -> Iterator[set[str]]:
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
class Seeded:
    worlds: list[dict[str, str]]  # valid path values around each collection: kind -> value
    valid_like: list[str]


@dataclass
class Fuzz:
    rng: random.Random
    client: Client
    user: str
    failures: list[str] = field(default_factory=list)
    requests: int = 0

    def send_json(self, url: str, body: dict[str, object]) -> None:
        """POST ``body`` as JSON; ``"<big>"`` is written as a ``BIG_JSON_INT`` literal."""
        text = json.dumps(body).replace('"<big>"', BIG_JSON_INT)
        self.send("post", url, text, content_type="application/json")  # type: ignore[arg-type]

    def send(
        self,
        method: str,
        url: str,
        data: dict[str, str] | str,
        htmx: bool = False,
        content_type: str | None = None,
    ) -> None:
        headers = {"HX-Request": "true"} if htmx else {}
        extra = {"content_type": content_type} if content_type else {}
        where = f"{self.user} {method.upper()} {url}"
        self.requests += 1
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                # Each request in a savepoint rolled back after it: a database error in one
                # request cannot poison the next, and every request sees the same seed.
                with transaction.atomic():
                    call = self.client.get if method == "get" else self.client.post
                    response = call(url, data, headers=headers, **extra)
                    transaction.set_rollback(True)
            except Exception as error:  # noqa: BLE001 - every crash is one finding
                lines = str(error).strip().splitlines() or [""]
                self._fail(where, f"{type(error).__name__}: {lines[0][:160]}", method, data)
                return
            elapsed = time.perf_counter() - started
            if response.status_code >= 500:
                self._fail(where, str(response.status_code), method, data)
                return
            if elapsed <= SLOW_S:
                return
            if attempt == 2:  # slow twice: not a hiccup of the machine
                self._fail(where, f"{elapsed:.1f} s", method, data)

    def _fail(self, where: str, found: str, method: str, data: dict[str, str] | str) -> None:
        if isinstance(data, str):
            sent = data.encode("ascii", "backslashreplace").decode()[:300]
        else:
            sent = urlencode({k: v[:60] for k, v in data.items()})
        self.failures.append(f"{where} -> {found} | {method} data: {sent[:300]}")


def _seed(annotator, researcher) -> Seeded:
    """Collections of every kind with each method's stored results, a campaign with the
    annotator's reserved assignment, a review campaign, jobs, a SCAAR analysis and the
    researcher's webhook."""
    make_small_collection("fuzz-reports")
    campaign = make_campaign(PASSAGE_RATING, annotators=[annotator], name="fuzz campaign")
    assignment = queue.next_item(campaign, annotator).assignment
    dense = make_dense_data()
    run_job(dense, RuleModels().models())
    seper = seper_collection()
    run_seper_job(seper_job(seper), CountingModels().models())
    reteval = make_reteval_collection("fuzz-reteval")
    run_scenario(reteval)
    output = GeneratedOutput.objects.filter(collection=reteval.collection).first()
    analysis = ScaarAnalysis.objects.create(
        key="fuzz", output=output, collection=reteval.collection, topic=output.topic,
        generator="g", embedder="e", logprob_source="stored", n_sentences=1, n_retrievals=1,
        flare_retrievals=1, score_metric="f1", score_before=0.1, score_after=0.2,
        detail={
            "settings": {"theta0": 0.8, "alpha": 0.5, "weighting": "raw", "k": 2},
            "sentences": [],
            "flare": {"refined_text": "y", "score_after": 0.3},
        },
    )  # fmt: skip
    job = Job.objects.order_by("pk").first()
    review = create_review_campaign(disagreement_collection().collection, "fuzz", QueueChoice())
    endpoint = Endpoint.objects.create(
        url="https://8.8.8.8/hook", secret="s" * 20, events=[], created_by=researcher
    )
    delivery = send_test_event(endpoint)
    formats = ["csv", "annotators", platform_format(campaign)]  # campaign export formats
    worlds = []
    for i, collection in enumerate(Collection.objects.order_by("pk")):
        topic = Topic.objects.filter(collection=collection).order_by("pk").first()
        worlds.append(
            {
                "collection": str(collection.pk),
                "collection_name": quote(collection.name, safe=""),
                "topic_name": quote(topic.external_id, safe=""),
                "topic": str(topic.pk),
                "job": str(job.pk),
                "campaign": str(campaign.pk),
                "slug": campaign.slug,
                "assignment": str(assignment.pk),
                "analysis": str(analysis.pk),
                "fmt": formats[i % len(formats)],
                "payment_file": PAYMENT_FILES[i % len(PAYMENT_FILES)],
                "webhook": str(endpoint.pk),
                "delivery": str(delivery.pk),
                "review_campaign": str(review.pk),
                "review_slug": review.slug,
                "review_item": str(review.items.order_by("pk").first().pk),
            }
        )
    ids = {pk for world in worlds for pk in world.values() if pk.isdigit()}
    return Seeded(worlds, sorted(ids) + VALID_LIKE)


def _path(route: Route, world: dict[str, str], **override: str) -> str:
    return route.url({name: world[kind] for name, _, kind in route.params()} | override)


def _walk(fuzz: Fuzz, routes: list[Route], seeded: Seeded, names: list[str], deep: bool) -> None:
    """Shallow: each route once with valid ids, once with garbage in the path and once with
    garbage in two parameters. Deep: valid ids of every seeded collection, garbage path values,
    every ``HOT`` value in each parameter the view reads, the other names a few at a time,
    and random form fields of every form, garbage and valid-looking mixed."""
    rng = fuzz.rng
    worlds = seeded.worlds
    for route in routes:
        # method -> parameter name -> the worlds whose page read it
        read: dict[str, dict[str, list[dict[str, str]]]] = {}
        for method in route.methods:
            read[method] = {}
            # Valid ids of each collection (of the first only, shallow) and one unknown
            # parameter: a view may read nothing from an empty query.
            for world in worlds if deep else worlds[:1]:
                with _recording_reads() as keys:
                    fuzz.send(method, _path(route, world), {PROBE: "1"})
                for key in sorted(keys - {"csrfmiddlewaretoken", PROBE}):
                    read[method].setdefault(key, []).append(world)
        for name, converter, _ in route.params():  # garbage in the path
            bad_values = INT_GARBAGE if converter == "int" else STR_GARBAGE
            for bad in bad_values[:2] + rng.sample(bad_values[2:], 1) if deep else bad_values[:1]:
                url = _path(route, rng.choice(worlds), **{name: bad})
                fuzz.send(route.methods[0], url, {}, htmx=rng.random() < 0.3)
        for method in route.methods:
            unread = [n for n in QUERY_NAMES if n not in read[method]]
            shuffled = rng.sample(unread, len(unread))
            groups = [shuffled[i : i + GROUP_SIZE] for i in range(0, len(shuffled), GROUP_SIZE)]
            if not deep:
                data = {n: rng.choice(HOT + GARBAGE) for n in rng.sample(QUERY_NAMES, 2)}
                fuzz.send(method, _path(route, worlds[0]), data)
                continue
            for name, readers in read[method].items():
                for value in [*HOT, rng.choice(GARBAGE)]:
                    url = _path(route, rng.choice(readers))
                    fuzz.send(method, url, {name: value}, htmx=rng.random() < 0.3)
            for group in groups:
                data = {name: rng.choice(HOT + GARBAGE) for name in group}
                fuzz.send(method, _path(route, rng.choice(worlds)), data, htmx=rng.random() < 0.3)
            if method == "post" and route.route.startswith("api/"):
                _send_json_bodies(fuzz, route, rng.choice(worlds), sorted(read[method]), names)
            for size in (rng.randint(2, 10), len(names)):  # form fields, every name at once
                data = {
                    n: rng.choice(HOT + GARBAGE)
                    if rng.random() < 0.7
                    else rng.choice(seeded.valid_like)
                    for n in rng.sample(names, size)
                }
                fuzz.send(method, _path(route, rng.choice(worlds)), data, htmx=rng.random() < 0.3)


def _send_json_bodies(
    fuzz: Fuzz, route: Route, world: dict[str, str], read: list[str] | set[str], names: list[str]
) -> None:
    """Each ``JSON_HOT`` value in each field the view reads, alone and among valid-looking
    values of the other fields (so it passes their checks and reaches the service), and in
    every known name at once. A view reads some fields only once others are valid (a
    rationale after the rating): valid-looking bodies are sent until it reads no new name."""
    url = _path(route, world)
    read = set(read)
    for _ in range(3):
        with _recording_reads() as keys:
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


@pytest.mark.parametrize("part", range(PARTS))
def test_no_url_answers_a_5xx_or_slowly(annotator, researcher, part):
    seeded = _seed(annotator, researcher)
    all_routes = _routes(get_resolver().url_patterns)
    assert len(all_routes) > 40, "the resolver walk found too few URL patterns"
    routes = all_routes[part::PARTS]  # parts run side by side under pytest-xdist
    names = sorted(set(QUERY_NAMES) | set(_form_field_names()))
    rng = random.Random(SEED * PARTS + part)
    failures, requests = [], 0
    annotate_routes = {
        r.route for r in routes if r.route.startswith(("annotate/", "api/v1/annotate/"))
    }
    # Deep where the account gets past the role check (Prolific arrivals are anonymous).
    for user, deep_routes in (
        (None, {r.route for r in routes if r.route.startswith("annotate/prolific/")}),
        (annotator, annotate_routes),
        (researcher, {r.route for r in routes}),
    ):
        client = Client()
        if user is not None:
            client.force_login(user)
        fuzz = Fuzz(rng, client, user.get_username() if user else "anonymous")
        _walk(fuzz, [r for r in routes if r.route not in deep_routes], seeded, names, deep=False)
        _walk(fuzz, [r for r in routes if r.route in deep_routes], seeded, names, deep=True)
        failures += fuzz.failures
        requests += fuzz.requests
    assert not failures, (
        f"{len(failures)} of {requests} requests failed (URL_FUZZ_SEED={SEED}):\n"
        + "\n".join(failures)
    )


def test_a_parameter_inside_a_segment_is_filled_like_a_whole_segment():
    route = Route("campaigns/<int:pk>/payment/<str:name>.csv", "payment-file", ("get",))
    assert route.params() == [("pk", "int", "campaign"), ("name", "str", "payment_file")]
    assert route.url({"pk": "7", "name": "bonuses"}) == "/campaigns/7/payment/bonuses.csv"
