"""Every URL pattern of the site, read from the resolver, and valid path values for each.

A path parameter is filled from the static segment before it (``collections/<pk>`` a
collection, ``topics/<pk>`` a topic of that collection, ...); a parameter after a segment no
table here knows fails the walk, so a new kind of door is noticed. ``seed`` makes the objects
(collections of every kind with each method's stored results, a crowd campaign, a review
campaign, jobs, a webhook) and one "world" of path values per collection. Used by the URL fuzz
(tests/security/test_url_fuzz.py) and the workspace matrix (test_workspace_matrix.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Value
from django.db.models.functions import Concat
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.exports.exports import platform_format
from annotation.models import Campaign, ReviewCampaign
from annotation.queue import queue
from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from annotation.task_types.names import PASSAGE_RATING
from annotation.views.campaign_payment import FILES as PAYMENT_FILES
from crux_app.models import Collection, GeneratedOutput, Job, Topic, WorkspaceMember
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

SKIPPED_PREFIXES = ("admin/", "accounts/")  # Django's own views

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
    "plots": "plot",  # collections/<pk>/agreement/plots/<plot>/
    "workspaces": "workspace",
}
# Reviewers' pages name a review campaign by slug and its items by primary key.
REVIEW_SEGMENT_KIND = {"review": "review_slug", "items": "review_item"}
# The REST API (/api/v1/) names collections, topics, campaigns and workspaces by name and slug.
API_SEGMENT_KIND = {
    "collections": "collection_name",
    "topics": "topic_name",
    "campaigns": "slug",
    "jobs": "job",
    "exports": "export",  # an export's download, by its job's id
    "assignments": "assignment",
    "review-campaigns": "review_slug",
    "workspaces": "workspace_name",
    "members": "member_username",
}
# Under a review campaign, /items/<pk>/ is one of its review items, not an assignment.
API_REVIEW_SEGMENT_KIND = {**API_SEGMENT_KIND, "items": "review_item"}


@dataclass(frozen=True)
class Route:
    route: str
    name: str
    methods: tuple[str, ...]  # of get, post, put, patch, delete: those the view serves

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
            if self.route.startswith("api/"):
                api = "/review-campaigns/" in self.route
                kinds = API_REVIEW_SEGMENT_KIND if api else API_SEGMENT_KIND
            else:
                kinds = REVIEW_SEGMENT_KIND if self.route.startswith("review/") else SEGMENT_KIND
            kind = kinds.get(previous) or SEGMENT_KIND.get(previous)
            assert kind, f"{self.name}: no seeded object for a parameter after '{previous}/'"
            out += [(m["name"], m["converter"] or "str", kind) for m in matches]
        return out

    def url(self, values: dict[str, str]) -> str:
        return "/" + PARAM.sub(lambda m: values[m["name"]], self.route)

    def path(self, world: dict[str, str], **override: str) -> str:
        """The URL with ``world``'s value of each parameter's kind (``override`` by name)."""
        return self.url({name: world[kind] for name, _, kind in self.params()} | override)


WRITE_METHODS = ("post", "put", "patch", "delete")


def _methods(callback: object) -> tuple[str, ...]:
    """The methods a view serves: a class-based view's handlers (DRF's too); get and post for
    a function."""
    view = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view is None:
        return ("get", "post")
    # ``as_view(http_method_names=...)`` narrows a view's methods for one route.
    allowed = getattr(callback, "view_initkwargs", {}).get("http_method_names")
    allowed = allowed or getattr(view, "http_method_names", None) or ("get", *WRITE_METHODS)
    return tuple(m for m in ("get", *WRITE_METHODS) if hasattr(view, m) and m in allowed)


def routes(patterns: list | None = None, prefix: str = "") -> list[Route]:
    """Every URL pattern under ``patterns`` (default: the site's), but Django's own views."""
    found = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            found += routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            if not route.startswith(SKIPPED_PREFIXES):
                found.append(Route(route, pattern.name or route, _methods(pattern.callback)))
    return found


@dataclass
class Seeded:
    worlds: list[dict[str, str]]  # valid path values around each collection: kind -> value
    ids: list[str]  # every seeded primary key, as text


def seed(annotator: AbstractBaseUser, researcher: AbstractBaseUser, marker: str = "") -> Seeded:
    """Collections of every kind with each method's stored results, a campaign with the
    annotator's reserved assignment, a review campaign, jobs, a SCAAR analysis and the
    researcher's webhook; ``marker`` starts each collection's and campaign's name (a text no
    page shows unless it shows them)."""
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
    review = create_review_campaign(
        disagreement_collection().collection, "fuzz review", QueueChoice()
    )
    endpoint = Endpoint.objects.create(
        url="https://8.8.8.8/hook", secret="s" * 20, events=[], created_by=researcher
    )
    delivery = send_test_event(endpoint)
    if marker:
        for model in (Collection, Campaign, ReviewCampaign):
            model.objects.update(name=Concat(Value(f"{marker}-"), "name"))
    membership = WorkspaceMember.objects.filter(user=researcher).order_by("pk").first()
    formats = ["csv", "annotators", platform_format(campaign)]  # campaign export formats
    worlds = []
    for i, collection in enumerate(Collection.objects.order_by("pk")):
        topic = Topic.objects.filter(collection=collection).order_by("pk").first()
        # The collection's latest job (else the first of all), so a job's door and a
        # collection's door of one world name the same collection.
        job = Job.objects.filter(collection=collection).order_by("-pk").first()
        job = job or Job.objects.order_by("pk").first()
        workspace = membership.workspace if membership else collection.workspace
        worlds.append(
            {
                "collection": str(collection.pk),
                "collection_name": quote(collection.name, safe=""),
                "topic_name": quote(topic.external_id, safe=""),
                "topic": str(topic.pk),
                "job": str(job.pk),
                "export": str(job.pk),
                "campaign": str(campaign.pk),
                "slug": campaign.slug,
                "assignment": str(assignment.pk),
                "analysis": str(analysis.pk),
                "fmt": formats[i % len(formats)],
                "payment_file": PAYMENT_FILES[i % len(PAYMENT_FILES)],
                "plot": "confusion-0",
                "webhook": str(endpoint.pk),
                "delivery": str(delivery.pk),
                "review_campaign": str(review.pk),
                "review_slug": review.slug,
                "review_item": str(review.items.order_by("pk").first().pk),
                "workspace": str(workspace.pk),
                "workspace_name": quote(workspace.name, safe=""),
                "member_username": quote(researcher.get_username(), safe=""),
            }
        )
    ids = {pk for world in worlds for pk in world.values() if pk.isdigit()}
    return Seeded(worlds, sorted(ids))
