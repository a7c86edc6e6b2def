"""The agreement report, cached under the collection's data version, as the leaderboard is.

Building a report reads every judgment of the collection and bootstraps every figure (0.6-0.8 s
on the demo, seconds on a TREC-sized collection); a page that recomputes it on every request
starves the others. The key is made of the collection, its data version
(``crux_app.data_version``: a new token whenever a judgment, qrels row, topic, run, output or
stored method result changes, annotators' labels included), the report's options, the
collection's campaigns and gold answers (gold uploads and campaign settings change the
per-annotator figures without touching a judgment), the comparison sources available, and the
code's version. A write changes the key, so a cached report is never shown for data it was not
computed from; the old entries simply expire.

The view reads the collection (and so its version) before the report: a write that commits in
between leaves the new figures under the old version, never the reverse.
"""

from __future__ import annotations

from django.db.models import Count

from annotation.models import Campaign, CampaignItem
from crux_app.data_version import code_version
from crux_app.derived_cache import get_or_compute, identity_digest
from crux_app.models import Collection
from evaluation.agreement.report import AgreementOptions, AgreementReport, build_report
from evaluation.agreement.sources import available_sources


def campaigns_state(collection: Collection) -> tuple:
    """What the report reads from the collection's campaigns besides the judgments: their
    names, task types and gold settings, their item counts, and their gold answers."""
    campaigns = (
        Campaign.objects.filter(collection=collection)
        .annotate(n_items=Count("items"))
        .order_by("pk")
        .values_list("pk", "slug", "name", "task_type", "gold_tolerance", "n_items")
    )
    gold = (
        CampaignItem.objects.filter(campaign__collection=collection, is_gold=True)
        .order_by("pk")
        .values_list("pk", "gold_answer")
    )
    return (tuple(campaigns), tuple(gold))


def cache_key(collection: Collection, options: AgreementOptions) -> str:
    """The key of the collection's report for ``options`` at its current data version."""
    identity = (
        code_version(),
        options,
        campaigns_state(collection),
        tuple(source.key for source in available_sources()),
    )
    digest = identity_digest(identity)
    return f"agreement:{collection.pk}:{collection.data_version.hex}:{digest}"


def agreement_report(collection: Collection, options: AgreementOptions) -> AgreementReport:
    """The collection's report for ``options``, built on the first request at its data version
    (EvaluationInputError propagates and is not cached)."""
    found = get_or_compute(
        cache_key(collection, options), lambda: build_report(collection, options)
    )
    found.collection = collection  # a cached copy names the collection as it is now
    return found
