"""``manage.py load_demo`` loads the nugget demo collection (declared through
``crux_app.demo_data``) so that the "where lost" bars are filled on the first visit, every
category for both runs; a second load leaves it unchanged."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from crux_app.models import Collection
from evaluation.nuggets.demo import COLLECTION
from evaluation.nuggets.models import NuggetAssignment
from tests.evaluation.nuggets.test_nugget_pages import figure

pytestmark = pytest.mark.django_db


def test_load_demo_fills_the_stacked_bars(researcher_client, tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_PASSWORD", "researcher-pass-1")
    monkeypatch.setenv("DEMO_ANNOTATOR_PASSWORD", "annotator-pass-1")
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert f"collection {COLLECTION}: loaded" in out.getvalue()
    collection = Collection.objects.get(name=COLLECTION)
    assert sorted(collection.runs.values_list("name", flat=True)) == ["bm25-rag", "dense-rag"]
    assert not collection.passages.filter(has_text=False).exists()

    losses = StringIO()
    call_command("nugget_losses", "--collection", COLLECTION, "--format", "json", stdout=losses)
    counts = {r["run"]: r["counts"] for r in json.loads(losses.getvalue())["runs"]}
    assert counts == {
        "bm25-rag": {"retrieval miss": 3, "generation drop": 1, "unsupported": 1, "delivered": 3},
        "dense-rag": {"retrieval miss": 2, "generation drop": 1, "unsupported": 1, "delivered": 4},
    }
    page = researcher_client.get(reverse("nuggets-collection", args=[collection.pk]))
    assert page.status_code == 200
    assert all(sum(trace["y"]) > 0 for trace in figure(page.content.decode())["data"])

    assignments = NuggetAssignment.objects.count()
    again = StringIO()
    call_command("load_demo", stdout=again)
    assert f"collection {COLLECTION}: already loaded" in again.getvalue()
    assert NuggetAssignment.objects.count() == assignments
