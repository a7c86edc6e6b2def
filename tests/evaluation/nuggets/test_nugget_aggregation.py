"""Nugget assignments aggregated (``manage.py aggregate_labels --task nugget_assignment``): the
aggregated judge's labels are stored as ``NuggetAssignment`` rows (the nugget pages read them as
any judge's) and the JSON names each item's nugget and run."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from evaluation.nuggets.assignment_task import TASK_KEY
from evaluation.nuggets.models import NuggetAssignment
from tests.evaluation.nuggets.test_nugget_assignment_review import (  # noqa: F401 (fixture)
    NAME,
    RUN_A_MOON,
    collection,
)

pytestmark = pytest.mark.django_db


def test_nugget_assignments_aggregate_into_the_nugget_table(collection):  # noqa: F811
    out = StringIO()
    call_command(
        "aggregate_labels", "--collection", NAME, "--task", TASK_KEY, "--method", "majority",
        "--judges", "amy", "user:anna", "gpt", "--name", "nug", "--format", "json", stdout=out,
    )  # fmt: skip
    got = json.loads(out.getvalue())
    items = {i["key"]: i for i in got["items"]}
    # RUN_A_MOON: gpt and amy support, anna not: support, 2 of 3.
    moon = items[RUN_A_MOON]
    assert (moon["label"], moon["n_labels"], moon["run"]) == ("support", 3, "runA")
    assert moon["confidence"] == pytest.approx(2 / 3, abs=1e-4)
    assert moon["nugget"]  # the nugget's text
    stored = NuggetAssignment.objects.filter(judge__name="aggregated:nug")
    assert stored.count() == got["n_items"]
    assert set(stored.values_list("assignment", flat=True)) <= {
        "support", "partial_support", "not_support"
    }  # fmt: skip


def test_rebuilding_a_judge_in_one_collection_keeps_its_labels_in_another(collection):  # noqa: F811
    """A judge spans collections: re-aggregating (or re-merging) under the same name in one
    collection replaces that collection's nugget labels only."""
    from evaluation.nuggets.assignment_review import clear_adjudicated
    from evaluation.nuggets.models import Nugget
    from tests.crux_app.factories import make_collection, make_topic

    args = ("aggregate_labels", "--collection", NAME, "--task", TASK_KEY, "--method",
            "majority", "--judges", "amy", "user:anna", "gpt", "--name", "nug")  # fmt: skip
    call_command(*args, stdout=StringIO())
    stored = NuggetAssignment.objects.filter(judge__name="aggregated:nug")
    here = stored.count()
    assert here
    # The same judge's label on a nugget of another collection.
    other = make_collection("elsewhere")
    elsewhere_row = stored.first()
    topic = make_topic(other, "o1")
    nugget = Nugget.objects.create(topic=topic, position=0, text="other", importance="vital")
    NuggetAssignment.objects.create(
        judge=elsewhere_row.judge, nugget=nugget, output=elsewhere_row.output,
        assignment="support",
    )  # fmt: skip
    call_command(*args, stdout=StringIO())
    assert stored.filter(nugget=nugget).count() == 1
    assert stored.count() == here + 1
    assert clear_adjudicated(elsewhere_row.judge_id, {other.pk}) == {topic.pk}
    assert stored.count() == here
