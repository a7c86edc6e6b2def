"""``bench/leaderboard.py --live``: the leaderboard page while ratings stream in.

Each change rewrites one rating of one topic through an ORM save (its post_save signal names
the topic: ``crux_app.data_version.bump_topics``), as a judging job's or an annotator's write
names the topics it stored; the next request computes that topic's per-topic values again and
reads the others from the unit cache (``crux_app.unit_cache``). Run from ``bench/leaderboard.py``
after its cold and warm requests, in the same Django process.
"""

from __future__ import annotations

import statistics
import time

TARGET = 0.05  # after one change / cold (issue #37)


def _request(client, url: str):
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise SystemExit(f"GET {url}: status {response.status_code}")
    return elapsed, response


def _rows(response) -> list[dict]:
    """The board's rows, every value unrounded."""
    return response.context["board"].rows


def _same(a: list[dict], b: list[dict]) -> bool:
    """Whether two boards hold the same rows, numbers equal to 1e-12 (a topic computed alone
    may sum its padded arrays in another order than among all topics)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.keys() != y.keys():
            return False
        for key, value in x.items():
            other = y[key]
            if isinstance(value, float) and isinstance(other, float):
                if abs(value - other) > 1e-12:
                    return False
            elif value != other:
                return False
    return True


def _picks(collection, changes: int) -> list:
    """One judgment of each of ``changes`` topics spread over the collection."""
    from crux_app.models import Judgment, Topic

    topics = list(Topic.objects.filter(collection=collection).order_by("pk").values_list("pk"))
    step = max(1, len(topics) // max(changes, 1))
    picked = [topics[i][0] for i in range(0, len(topics), step)][:changes]
    return [
        Judgment.objects.filter(topic_id=pk, rating__isnull=False).order_by("pk").first()
        for pk in picked
    ]


def live(client, url: str, collection, changes: int, cold_s: float, warm_s: float) -> None:
    """Time ``changes`` single-rating changes and print them against the cold request."""
    from crux_app import data_version
    from crux_app.unit_cache import COMPUTED
    from evaluation.crux.evaluate import TOPIC_PART
    from evaluation.leaderboard.board_cache import compute_board, page_inputs

    _, response = _request(client, url)  # after the import's write above: everything again
    before_rows = _rows(response)
    times, recomputed = [], []
    for judgment in _picks(collection, changes):
        judgment.rating = 5 - judgment.rating
        judgment.save(update_fields=["rating"])  # post_save: bump_topics([its topic])
        computed = COMPUTED[TOPIC_PART]
        elapsed, response = _request(client, url)
        times.append(elapsed)
        recomputed.append(COMPUTED[TOPIC_PART] - computed)
    live_rows = _rows(response)

    # The combination alone, every topic's values cached: unit versions and cache read,
    # the means per run, the Kendall tau matrix and the warnings.
    params = response.context["params"]
    collection.refresh_from_db()
    depths = page_inputs(collection).depths
    started = time.perf_counter()
    compute_board(collection, params, depths)
    combine_s = time.perf_counter() - started

    data_version.bump(collection.pk)  # every topic computed afresh from the same rows
    fresh_s, fresh = _request(client, url)
    same = _same(_rows(fresh), live_rows)

    after_s = statistics.median(times)
    ratio = after_s / cold_s
    print(f"  after one change: {after_s:.3f} s, cold {cold_s:.3f} s, warm {warm_s:.3f} s")
    print(
        f"  ratio after one change / cold {ratio:8.3f}    "
        f"(target <= {TARGET}: {'met' if ratio <= TARGET else 'NOT met'})"
    )
    print(
        f"  per change ({len(times)}, median shown): "
        + ", ".join(f"{t:.3f} s" for t in times)
        + f"; topics recomputed each: {', '.join(map(str, recomputed))}"
    )
    print(f"  combination alone (cached per-topic values -> board, tau): {combine_s:.3f} s")
    print(f"  cold recomputation after the changes: {fresh_s:.3f} s")
    print(
        "  page after the changes shows a cold computation's numbers: "
        + ("OK" if same else "MISMATCH")
        + f" (numbers moved by the changes: {'no' if _same(live_rows, before_rows) else 'yes'})"
    )
