"""What a job will cost on this installation: its kind's planner counts the work
(``JobKind.estimate_work``), past succeeded jobs of the same kind and model give the throughput,
``MODEL_PRICES`` the price; ``crux_app.jobs.cost`` computes the figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from crux_app.models import Collection, Job, Topic

from .catalog import get_kind
from .cost import Estimate, PastJob, Price, WorkLeft, estimate, running_seconds

# Past jobs read for the throughput: the latest ones reflect this installation's hardware now.
RECENT_JOBS = 5


def past_jobs(kind: str, history: Mapping[str, Any]) -> list[PastJob]:
    """The latest succeeded jobs of ``kind`` whose params hold ``history`` (the same model)."""
    rows = (
        Job.objects.filter(kind=kind, state=Job.State.SUCCEEDED, done__gt=0)
        .filter(params__contains=dict(history))
        .exclude(finished_at=None)
        .order_by("-finished_at", "-pk")
        .values_list(
            *("done", "done_before_attempt", "running_since", "started_at", "finished_at"),
            "completion_tokens",
        )
    )
    return [
        # The last attempt's clock (running_since) when it has one, and that attempt's items.
        PastJob(done, running_seconds(running or started, finished), tokens, done - before)
        for done, before, running, started, finished, tokens in rows[:RECENT_JOBS]
    ]


def configured_price(served_model: str | None) -> Price | None:
    if not served_model:
        return None
    return settings.MODEL_PRICES.get(served_model)  # parsed by parse_prices at startup


def job_estimate(
    kind_name: str,
    params: Mapping[str, Any],
    collection: Collection | None,
    topic: Topic | None = None,
) -> Estimate | None:
    """The estimate of a job of ``kind_name`` with ``params`` (None: its kind has no planner).

    Raises ``ValueError`` for parameters the job would refuse."""
    planner = get_kind(kind_name).estimate_work
    if planner is None:
        return None
    return estimate_for_kind(kind_name, planner(params, collection, topic))


def estimate_for_kind(kind_name: str, work: WorkLeft) -> Estimate:
    """The estimate of ``work`` planned for a job of ``kind_name`` on this installation."""
    past = past_jobs(kind_name, work.history)
    return estimate(work, get_kind(kind_name).unit, past, configured_price(work.served_model))
