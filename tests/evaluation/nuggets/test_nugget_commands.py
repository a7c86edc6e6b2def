"""``manage.py nuggets`` (the issue's JSON, hand-computed) and ``manage.py nugget_losses`` on a
hand-made topic with one vital nugget in each category."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import Collection, Judge, Passage
from evaluation.nuggets.losses import LossSettings, nugget_losses
from evaluation.nuggets.models import Nugget, NuggetPassageRating
from tests.evaluation.nuggets.nugget_files import ANSWERS, ASSIGNMENTS, NUGGETS, write_lines
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db
TWICE = "Tides repeat twice a day"


def command(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, "--collection", NAME, *args, stdout=out)
    return out.getvalue()


def test_nuggets_json_is_the_issues_shape_with_hand_computed_scores(tmp_path):
    load_all(tmp_path)

    data = json.loads(command("nuggets", "--judge", "gpt", "--format", "json"))

    run_a, run_b = data["runs"]
    assert list(run_a) == ["run", "strict_vital", "strict_all", "vital", "all", "topics"]
    assert run_a["run"] == "runA"
    assert run_a["topics"] == [
        {"topic": "t1", "strict_vital": 1.0, "strict_all": 2 / 3, "vital": 1.0, "all": 2 / 3},
        {"topic": "t2", "strict_vital": 0.0, "strict_all": 0.0, "vital": 0.0, "all": 0.5},
    ]
    assert run_a["strict_vital"] == 0.5 and run_a["vital"] == 0.5
    assert run_a["strict_all"] == pytest.approx(1 / 3)
    assert run_a["all"] == pytest.approx((2 / 3 + 0.5) / 2)
    assert run_b == {
        "run": "runB",
        "strict_vital": 0.0,
        "strict_all": 0.0,
        "vital": 0.25,
        "all": pytest.approx(1 / 6),
        "topics": [
            {
                "topic": "t1",
                "strict_vital": 0.0,
                "strict_all": 0.0,
                "vital": 0.25,
                "all": pytest.approx(1 / 6),
            }
        ],
    }
    assert "runA" in command("nuggets")  # the judge with the most assignments by default


def test_nuggets_refuses_an_unknown_judge_or_collection(tmp_path):
    load_all(tmp_path)
    with pytest.raises(CommandError, match="no judge 'nobody'"):
        command("nuggets", "--judge", "nobody")
    with pytest.raises(CommandError, match="no collection"):
        call_command("nuggets", "--collection", "missing")


def load_loss_topic(tmp_path, assignment_kind: str = "llm") -> Judge:
    """t1 with four vital nuggets: runA delivers 'moon', states 'sun' citing no passage that
    supports it, leaves out 'spring' although its cited d3 supports it, and no passage it
    retrieved supports 'twice' (only d9, which no run retrieved)."""
    nuggets = json.loads(json.dumps(NUGGETS))
    nuggets[0]["nuggets"][2]["importance"] = "vital"
    nuggets[0]["nuggets"].append({"text": TWICE, "importance": "vital"})
    assignments = json.loads(json.dumps(ASSIGNMENTS))
    for line in assignments:
        for item in line["nuggets"]:
            item["importance"] = "vital" if line["qid"] == "t1" else "okay"
        if line["qid"] == "t1":
            line["nuggets"].append(
                {"text": TWICE, "importance": "vital", "assignment": "not_support"}
            )
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "n.jsonl", nuggets))
    call_command("import_answers", "--collection", NAME, write_lines(tmp_path / "a.jsonl", ANSWERS))
    call_command(
        "import_nugget_assignments",
        "--collection",
        NAME,
        "--judge",
        "amy",
        "--kind",
        assignment_kind,
        write_lines(tmp_path / "s.jsonl", assignments),
    )
    rater = Judge.objects.create(name="rater", kind="llm", model_id="m", prompt_version="v")
    collection = Collection.objects.get(name=NAME)
    d9 = Passage.objects.create(collection=collection, external_id="d9", text="twice")
    nugget = {n.text: n for n in Nugget.objects.filter(topic__external_id="t1")}
    passage = {p.external_id: p for p in Passage.objects.all()}
    passage["d9"] = d9
    for text, docid, rating in (
        ("The moon's gravity pulls the oceans", "d1", 5),
        ("The sun also raises tides", "d2", 1),  # below tau: no support
        ("Spring tides follow new and full moons", "d3", 4),
        (TWICE, "d9", 5),
    ):
        NuggetPassageRating.objects.create(
            judge=rater, nugget=nugget[text], passage=passage[docid], rating=rating
        )
    return rater


def test_one_vital_nugget_in_each_category(tmp_path):
    rater = load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    judge = Judge.objects.get(name="amy")

    rows = nugget_losses(collection, LossSettings(judge, rater, k=10, tau=3), runs=["runA"])

    assert [(r.position, r.category) for r in rows] == [
        (0, "delivered"),
        (1, "unsupported"),
        (2, "generation drop"),
        (3, "retrieval miss"),
    ]
    assert rows[0].cited_support == ("d1",) and rows[0].retrieved_support == ("d1",)
    assert rows[2].cited_support == ("d3",)
    # At k = 2, d3 is out of the top k, but cited: still a generation drop.
    rows = nugget_losses(collection, LossSettings(judge, rater, k=2, tau=3), runs=["runA"])
    assert rows[2].category == "generation drop" and rows[2].retrieved_support == ()
    # At tau = 5, only d1 and d9 support their nuggets.
    rows = nugget_losses(collection, LossSettings(judge, rater, k=10, tau=5), runs=["runA"])
    assert [r.category for r in rows] == [
        "delivered",
        "unsupported",
        "retrieval miss",
        "retrieval miss",
    ]


def test_nugget_losses_command_counts_per_run(tmp_path):
    load_loss_topic(tmp_path)

    data = json.loads(command("nugget_losses", "--format", "json"))

    assert data["categories"] == ["retrieval miss", "generation drop", "unsupported", "delivered"]
    # runB (reference d3 only): moon missed, sun stated without support, spring dropped
    # (d3 supports it), twice missed.
    assert data["runs"] == [
        {
            "run": "runA",
            "vital_nuggets": 4,
            "counts": dict.fromkeys(data["categories"], 1),
        },
        {
            "run": "runB",
            "vital_nuggets": 4,
            "counts": {
                "retrieval miss": 2,
                "generation drop": 1,
                "unsupported": 1,
                "delivered": 0,
            },
        },
    ]
    assert "runA" in command("nugget_losses", "--k", "3")
    with pytest.raises(CommandError):
        command("nugget_losses", "--k", "0")


def test_a_human_judges_sample_gets_wilson_intervals(tmp_path):
    load_loss_topic(tmp_path, assignment_kind="human")

    data = json.loads(command("nugget_losses", "--format", "json"))

    interval = data["runs"][0]["intervals"]["delivered"]
    assert interval["share"] == 0.25
    assert 0 < interval["low"] < 0.25 < interval["high"] < 1
