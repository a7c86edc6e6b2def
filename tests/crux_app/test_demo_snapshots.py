"""Every researcher page, API answer and export of the demo, byte for byte against the golden
files in ``tests/data/demo_snapshots/`` (issue #25: a refactor keeps every page and figure).

The demo is loaded once, in one test (``load_demo`` and ``demo_campaign``, as
``scripts/demo.sh`` does, with id sequences restarted so ids never vary), a researcher walks
every page reachable from the navigation, and the API's collection endpoints and the export
commands are read; ``tests/crux_app/demo_pages.py`` says what is normalised (CSRF tokens,
nonces, static-file hashes, timestamps). A mismatch prints the unified diff of the first
differing page.

A page that changes on purpose: rewrite the goldens with

    UPDATE_DEMO_SNAPSHOTS=1 .venv/bin/python -m pytest tests/crux_app/test_demo_snapshots.py

and review ``git diff tests/data/demo_snapshots`` (goldens of pages no longer found are
deleted).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from django.test import Client
from django.urls import resolve

from crux_app.models import Collection
from tests.crux_app import demo_pages

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "demo_snapshots"
INDEX = "_index.tsv"  # golden file name -> the URL or export it holds
UPDATE = os.environ.get("UPDATE_DEMO_SNAPSHOTS") == "1"

pytestmark = pytest.mark.django_db

# The views a walk of the demo must reach (a link that disappears is a failure, not a
# smaller snapshot): collections, the matrix, each method's pages, the cross-method pages,
# the exports and the API's result endpoints.
REACHED_VIEWS = {
    "collection-list",
    "collection-detail",
    "topic-detail",
    "job-list",
    "job-table",
    "annotation-home",
    "review-home",
    "upload",
    "campaign-list",
    "campaign-detail",
    "campaign-export",
    "annotator-quality",
    "annotator-quality-csv",
    "review-campaign-list",
    "crux-topic",
    "crux-disagreements",
    "crux-start",
    "leaderboard",
    "agreement",
    "judge-report",
    "seper-collection",
    "seper-topic",
    "dense-collection",
    "dense-topic",
    "scaar-collection",
    "reteval-collection",
    "reteval-topic",
    "nuggets-collection",
    "nuggets-topic",
    "api-collections",
    "api-leaderboard",
    "api-per-topic",
    "api-coverage-matrix",
    "api-agreement",
    "api-judgments",
    "api-qrels",
    "api-seper-scores",
    "api-dense-results",
    "api-scaar-answers",
    "api-reteval-results",
    "api-nugget-scores",
    "api-nugget-losses",
    "api-campaign-labels",
    "api-annotator-quality",
}
EXPORT_COMMANDS = {
    "export_labels",
    "export_nuggets",
    "export_answers",
    "export_nugget_assignments",
    "export_campaign",
}


def rendered_demo() -> dict[str, tuple[str, str]]:
    """Golden file name -> (URL or export, normalised text) of the whole demo, loaded in the
    calling test's transaction (rolled back after it)."""
    from django.contrib.auth import get_user_model

    demo_pages.load_demo_with_fixed_ids()
    client = Client()
    client.force_login(get_user_model().objects.get(username="researcher"))
    return {demo_pages.golden_name(key): (key, text) for key, text in demo_pages.snapshots(client)}


def write_goldens(snapshots: dict[str, tuple[str, str]]) -> None:
    """Rewrite the goldens from ``snapshots``, deleting those of pages no longer found."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for stale in {p.name for p in GOLDEN.iterdir()} - set(snapshots) - {INDEX}:
        (GOLDEN / stale).unlink()
    for name, (_, text) in snapshots.items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
    index = "".join(f"{name}\t{key}\n" for name, (key, _) in sorted(snapshots.items()))
    (GOLDEN / INDEX).write_text(index, encoding="utf-8")


def walk_problems(snapshots: dict[str, tuple[str, str]]) -> list[str]:
    """What the walk missed (a view or export of ``REACHED_VIEWS``, a collection) or was
    answered with a server error or, outside the API and commands, a 400."""
    keys = [key for key, _ in snapshots.values()]
    reached = {resolve(key.split("?", 1)[0]).url_name for key in keys if key.startswith("/")}
    problems = [f"no page of view {name} reached" for name in sorted(REACHED_VIEWS - reached)]
    exports = {key.split("/", 1)[0] for key in keys if not key.startswith("/")}
    problems += [f"no export by {name}" for name in sorted(EXPORT_COMMANDS - exports)]
    for collection in Collection.objects.order_by("pk"):
        if f"/collections/{collection.pk}/leaderboard/" not in keys:
            problems.append(f"collection {collection.name}: its pages were not reached")
    for key, text in snapshots.values():
        status = text.split("\n", 1)[0]
        refused = status == "status: 400" and key.startswith("/") and not key.startswith("/api/")
        if status.startswith("status: 5") or refused:
            problems.append(f"{key}: {status}")
    return problems


def golden_problems(snapshots: dict[str, tuple[str, str]]) -> list[str]:
    """Pages without a golden, goldens without a page, and pages that differ from their
    golden, with the unified diff of the first of those."""
    stored = {p.name for p in GOLDEN.glob("*.txt")} if GOLDEN.is_dir() else set()
    missing = sorted(set(snapshots) - stored)
    gone = sorted(stored - set(snapshots))
    differing = [
        name
        for name in sorted(set(snapshots) & stored)
        if (GOLDEN / name).read_text(encoding="utf-8") != snapshots[name][1]
    ]
    if not (missing or gone or differing):
        return []
    report = [
        f"{len(differing)} differ from their goldens, {len(missing)} new, {len(gone)} no "
        "longer found; if that is intended: UPDATE_DEMO_SNAPSHOTS=1 .venv/bin/python -m "
        "pytest tests/crux_app/test_demo_snapshots.py",
        *(f"new: {snapshots[name][0]}" for name in missing[:20]),
        *(f"no longer found: {name}" for name in gone[:20]),
        *(f"differs: {snapshots[name][0]}" for name in differing[:40]),
    ]
    if differing:
        first = differing[0]
        report.append(f"--- the first differing page: {snapshots[first][0]}")
        report += difflib.unified_diff(
            (GOLDEN / first).read_text(encoding="utf-8").splitlines(),
            snapshots[first][1].splitlines(),
            f"golden/{first}",
            f"now/{first}",
            lineterm="",
        )
    return report


# One test renders the whole demo once: split over xdist processes, more tests would load and
# walk it once per process.
def test_every_demo_page_and_export_matches_its_golden() -> None:
    snapshots = rendered_demo()
    problems = walk_problems(snapshots)
    if UPDATE and not problems:
        write_goldens(snapshots)
    problems += golden_problems(snapshots)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_normalisation_replaces_only_what_varies_between_renderings() -> None:
    page = (
        '<input type="hidden" name="csrfmiddlewaretoken" value="AbC123xyz">'
        '<script nonce="r4nd0m">x</script> <link href="/static/css/app.0123456789ab.css">'
        " created 2026-11-26T22:15:03.123456+00:00; 0.7667 of 12 at demo-1:2#6"
    )
    assert demo_pages.normalise(page) == (
        '<input type="hidden" name="csrfmiddlewaretoken" value="CSRF">'
        '<script nonce="NONCE">x</script> <link href="/static/css/app.css">'
        " created TIMESTAMP; 0.7667 of 12 at demo-1:2#6"
    )


def test_a_changed_page_is_reported_with_its_diff(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(f"{__name__}.GOLDEN", tmp_path)
    (tmp_path / "a.txt").write_text("status: 200\n\n<td>0.7667</td>\n")
    (tmp_path / "old.txt").write_text("status: 200\n")
    report = golden_problems(
        {
            "a.txt": ("/collections/1/leaderboard/", "status: 200\n\n<td>0.7668</td>\n"),
            "b.txt": ("/collections/2/", "status: 200\n"),
        }
    )
    assert report[0].startswith("1 differ from their goldens, 1 new, 1 no longer found")
    assert "new: /collections/2/" in report
    assert "no longer found: old.txt" in report
    assert "--- the first differing page: /collections/1/leaderboard/" in report
    assert "-<td>0.7667</td>" in report and "+<td>0.7668</td>" in report
