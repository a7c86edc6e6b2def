"""The nugget scores per (run, topic) under each judge, as the judge report reads registered
leaderboard columns (``per_topic_values`` with the judge's name): each judge's own assignments,
never another judge's in place of a judge that assigned nothing."""

import json

import numpy as np
import pytest
from django.core.management import call_command

from crux_app.models import Collection
from evaluation.judge_report.scores import collection_axes, registered_scores
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db

MOON, SUN, SPRING = (
    "The moon's gravity pulls the oceans",
    "The sun also raises tides",
    "Spring tides follow new and full moons",
)


def _line(run: str, labels: list[tuple[str, str, str]]) -> dict:
    nuggets = [{"text": t, "importance": i, "assignment": a} for t, i, a in labels]
    return {"qid": "t1", "run_id": run, "nuggets": nuggets}


def _import_person(tmp_path) -> None:
    """Amy reads runB as the better answer to t1, the LLM judge ("gpt") runA."""
    lines = [
        _line("runA", [(MOON, "vital", "support"), (SUN, "vital", "not_support")]),
        _line("runB", [(MOON, "vital", "support"), (SUN, "vital", "support")]),
    ]
    path = tmp_path / "amy.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    args = ("--collection", NAME, "--judge", "amy", "--kind", "human", str(path))
    call_command("import_nugget_assignments", *args)


def test_each_judges_per_topic_nugget_scores_reach_the_judge_report(tmp_path):
    load_all(tmp_path)
    _import_person(tmp_path)
    collection = Collection.objects.get(name=NAME)
    axes = collection_axes(collection)
    assert (axes.run_names, axes.topic_names) == (["runA", "runB"], ["t1", "t2"])

    llm = registered_scores(collection, "gpt", "nuggets_vital", 10, axes)
    person = registered_scores(collection, "amy", "nuggets_vital", 10, axes)

    # gpt: runA supports both vital nuggets of t1; t2 has none (0); runB has one partial
    # (0.5 of 2 vital). Amy: runA one of two, runB both; she labelled no t2 answer.
    np.testing.assert_array_equal(llm, [[1.0, 0.0], [0.25, np.nan]])
    np.testing.assert_array_equal(person, [[0.5, np.nan], [1.0, np.nan]])


def test_a_judge_without_assignments_has_no_nugget_scores(tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    axes = collection_axes(collection)
    assert np.isnan(registered_scores(collection, "nobody", "nuggets_all", 10, axes)).all()
