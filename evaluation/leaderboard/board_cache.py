"""The leaderboard's tables, cached under the collection's data version.

Computing a board reads every judgment of the collection (seconds on a TREC-sized one); it is
cached in Django's cache under a key made of the collection, its data version
(``crux_app.data_version``: a new token whenever a judgment, qrels row, run, topic, passage or
stored method result of the collection changes), the parameters that change the numbers
(judge, tau, k, qrels source, unjudged = 0), the registered column groups and the settings the
numbers depend on, and the code's version (``code_version``: a deploy never reads its
predecessor's numbers). A write changes the version, so a cached table is never shown for data
it was not computed from; the old entries simply expire. Sorting is applied per request to the
cached rows (it changes their order, not their values).

The view must read the collection (and so its version) before anything it caches: a write that
commits in between then leaves the new numbers under the old version, never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse

from crux_app.data_version import code_version
from crux_app.derived_cache import get_or_compute, identity_digest
from crux_app.inputs import JudgeInfo, collection_judges, qrels_sources
from crux_app.models import Collection, Topic
from evaluation.leaderboard.columns import LeaderboardParams, registry_token
from evaluation.leaderboard.depths import Depths, collection_depths
from evaluation.leaderboard.table import Leaderboard, build_leaderboard, run_names

# Settings the numbers depend on besides the rows (density counts tokens with this tokenizer).
SETTINGS_READ = ("TOKENIZER_MODEL",)


@dataclass(frozen=True)
class PageInputs:
    """What the page reads besides the table: the selectors' choices, the depths with stored
    values, the topic links."""

    judges: list[JudgeInfo]
    sources: list[tuple[str, int]]
    depths: Depths
    topics: list[dict[str, object]]


@dataclass(frozen=True)
class CachedBoard:
    board: Leaderboard
    names: list[str]  # the runs in the order the board read them (sorting's tie order)


def cache_key(collection: Collection, part: str, *values: object) -> str:
    """The key of one cached ``part`` of the collection's page at its current data version."""
    identity = (
        code_version(),
        registry_token(),
        tuple(getattr(settings, name, None) for name in SETTINGS_READ),
        values,
    )
    digest = identity_digest(identity)
    return f"leaderboard:{collection.pk}:{collection.data_version.hex}:{part}:{digest}"


# A topic id no topic has: where the URL of every topic's page splits around its id.
_TOPIC_SLOT = 9_876_543_210


def topic_links(collection_pk: int, topics: list[tuple[int, str]]) -> list[dict[str, object]]:
    """Each topic's page (which links every method's page of the topic). The URL is reversed
    once and the ids put in (5,000 reversals take a tenth of a second, after every write)."""
    before, after = reverse("topic-detail", args=[collection_pk, _TOPIC_SLOT]).rsplit(
        str(_TOPIC_SLOT), 1
    )
    return [{"pk": pk, "name": name, "url": f"{before}{pk}{after}"} for pk, name in topics]


def topic_names(collection: Collection) -> list[tuple[int, str]]:
    topics = Topic.objects.filter(collection=collection).order_by("external_id")
    return list(topics.values_list("pk", "external_id"))


def compute_page_inputs(collection: Collection) -> PageInputs:
    return PageInputs(
        judges=collection_judges(collection),
        sources=qrels_sources(collection),
        depths=collection_depths(collection, run_names(collection)),
        topics=topic_links(collection.pk, topic_names(collection)),
    )


def page_inputs(collection: Collection) -> PageInputs:
    """The collection's ``PageInputs`` at its data version, computed on the first request."""
    return get_or_compute(cache_key(collection, "inputs"), lambda: compute_page_inputs(collection))


def compute_board(collection: Collection, params: LeaderboardParams, depths: Depths) -> CachedBoard:
    names = run_names(collection)
    return CachedBoard(build_leaderboard(collection, params, "run", False, depths), names)


def leaderboard(
    collection: Collection,
    params: LeaderboardParams,
    sort: str,
    descending: bool,
    depths: Depths,
) -> Leaderboard:
    """The board of ``params`` sorted by ``sort``, computed on the first request at the
    collection's data version (EvaluationInputError propagates and is not cached);
    ``depths``: the page inputs' of the same version."""
    key = cache_key(collection, "board", params)
    cached = get_or_compute(key, lambda: compute_board(collection, params, depths))
    return cached.board.sorted_by(sort, descending, cached.names)
