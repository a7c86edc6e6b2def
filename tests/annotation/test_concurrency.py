"""Concurrent queue requests and submits, for real: threads with their own DB connections."""

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.db import connection

from annotation.models import Assignment, CampaignItem
from annotation.queue import queue
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db(transaction=True)


def run_at_once(calls: list[Callable[[], object]]) -> list[object]:
    """Run the calls in threads released together; each thread has its own connection."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            results[i] = calls[i]()
        except BaseException as error:  # reported below, so a failing thread fails the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return results


def test_many_annotators_asking_at_once_never_exceed_the_overlap():
    users = [make_annotator(f"a{i}") for i in range(10)]
    campaign = make_campaign(overlap=2, annotators=users)
    keep = list(campaign.items.order_by("id").values_list("pk", flat=True)[:3])
    campaign.items.exclude(pk__in=keep).delete()

    results = run_at_once([lambda u=u: queue.next_item(campaign, u) for u in users])

    given = [r.assignment.item_id for r in results if r.assignment is not None]
    assert len(given) == 6  # 3 items x overlap 2, and no more
    assert set(Counter(given).values()) == {2}
    assert sorted(CampaignItem.objects.values_list("reserved_count", flat=True)) == [2, 2, 2]
    assert sum(r.reason == queue.EXHAUSTED for r in results) == 4


def test_one_annotator_double_request_reserves_once():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=1, annotators=[anna])
    results = run_at_once([lambda: queue.next_item(campaign, anna) for _ in range(4)])
    assert len({r.assignment.pk for r in results}) == 1
    assert Assignment.objects.filter(annotator=anna).count() == 1


def test_concurrent_double_submit_stores_and_counts_once():
    anna = make_annotator("anna")
    campaign = make_campaign(overlap=2, annotators=[anna])
    assignment = queue.next_item(campaign, anna).assignment
    answer = {"rating": 4, "rationale": "", "rationale_start": None, "rationale_end": None}
    results = run_at_once([lambda: submit(assignment, answer, 900) for _ in range(4)])
    assert sum(r.stored for r in results) == 1
    item = CampaignItem.objects.get(pk=assignment.item_id)
    assert (item.annotations_done, item.reserved_count) == (1, 0)
