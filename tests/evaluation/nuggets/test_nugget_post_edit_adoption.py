"""Adopting an annotator's post-edited nugget lists (``adopt_nugget_edits``, issue 27 section 5):
through the import's path (unchanged nuggets keep their labels, also where they moved), all
topics or none, a dry run that writes nothing, the history kept and shown on the topic page."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment
from annotation.queue import queue
from annotation.task_types.answers import parse_answer
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from crux_app.models import Collection
from crux_app.roles import RESEARCHER, add_role
from evaluation.nuggets.models import Nugget, NuggetAssignment, NuggetEdit
from evaluation.nuggets.post_edit_adoption import AdoptionError, adopt_nugget_edits
from evaluation.nuggets.post_edit_task import KEY
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.nuggets.nugget_files import NUGGETS, write_lines
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db

MOON, SUN, SPRING = (n["text"] for n in NUGGETS[0]["nuggets"])


def n(text: str, importance: str = "vital") -> dict:
    return {"text": text, "importance": importance}


def op(kind: str, positions: list, before: list, after: list, at_ms: int = 0) -> dict:
    return {"op": kind, "positions": positions, "before": before, "after": after, "at_ms": at_ms}


# t1: the moon's nugget deleted, the sun's edited, spring tides (moved up) re-labelled, one added.
T1_HISTORY = [
    op("delete", [0], [n(MOON)], [], 1000),
    op("edit", [0], [n(SUN)], [n("The sun raises a smaller tide")], 4000),
    op("importance", [1], [n(SPRING, "okay")], [n(SPRING, "vital")], 5000),
    op("add", [2], [], [n("Neap tides follow quarter moons")], 9000),
]
T1_FINAL = [
    n("The sun raises a smaller tide"),
    n(SPRING, "vital"),
    n("Neap tides follow quarter moons"),
]


def labels() -> dict[str, int]:
    """Assignments per nugget text."""
    return {
        nugget.text: nugget.assignments.count()
        for nugget in Nugget.objects.filter(topic__collection__name=NAME)
    }


def stored() -> list[tuple]:
    return list(
        Nugget.objects.filter(topic__collection__name=NAME)
        .order_by("topic__external_id", "position")
        .values_list("pk", "topic__external_id", "position", "text", "importance")
    )


def answer_all(campaign, user, answers: dict[str, tuple[list, list]]) -> dict[str, Assignment]:
    """Submit ``user``'s (final list, history) per topic; unlisted topics unchanged."""
    done = {}
    while (assignment := queue.next_item(campaign, user).assignment) is not None:
        payload = assignment.item.payload
        shown = [n(x["text"], x["importance"]) for x in payload["nuggets"]]
        final, history = answers.get(payload["topic"], (shown, []))
        data = {"edits": json.dumps({"nuggets": final, "history": history})}
        submit(assignment, parse_answer(KEY, data, payload), 1000)
        done[payload["topic"]] = assignment
    return done


@pytest.fixture
def campaign(tmp_path):
    load_all(tmp_path)
    anna = make_annotator("anna")
    campaign = make_campaign(
        KEY, collection=Collection.objects.get(name=NAME), annotators=[anna], overlap=1
    )
    return campaign


def test_adopting_keeps_the_labels_of_unchanged_nuggets_and_records_the_history(campaign):
    before = {row[3]: row[0] for row in stored()}
    assert labels() == {MOON: 2, SUN: 2, SPRING: 2, "A pastry filled with cream": 1}
    done = answer_all(campaign, campaign.invited.get(), {"t1": (T1_FINAL, T1_HISTORY)})

    adoption = adopt_nugget_edits(campaign.slug, "anna")

    assert [(t.topic, t.status, t.operations) for t in adoption.topics] == [
        ("t1", "adopted", 4),
        ("t2", "unchanged", 0),  # kept as it was: nothing to write
    ]
    t1 = [row for row in stored() if row[1] == "t1"]
    assert [(pos, text, imp) for _, _, pos, text, imp in t1] == [
        (0, "The sun raises a smaller tide", "vital"),
        (1, SPRING, "vital"),
        (2, "Neap tides follow quarter moons", "vital"),
    ]
    # Spring tides kept its row and labels although it moved and was re-labelled; the edited
    # nugget lost its labels (another statement); the deleted one is gone with its labels.
    assert t1[1][0] == before[SPRING]
    assert labels() == {
        "The sun raises a smaller tide": 0,
        SPRING: 2,
        "Neap tides follow quarter moons": 0,
        "A pastry filled with cream": 1,
    }
    assert not NuggetAssignment.objects.filter(nugget_id=before[MOON]).exists()
    edits = list(NuggetEdit.objects.all())
    assert [(e.topic.external_id, e.sequence, e.op, e.positions, e.at_ms) for e in edits] == [
        ("t1", i, h["op"], h["positions"], h["at_ms"]) for i, h in enumerate(T1_HISTORY)
    ]
    assert {(e.user.username, e.campaign, e.assignment_id) for e in edits} == {
        ("anna", campaign.slug, done["t1"].pk)
    }
    assert edits[1].before == [n(SUN)] and edits[1].after == [n("The sun raises a smaller tide")]
    assert adoption.result.counts["operations recorded"] == 4
    # Adopting again changes nothing.
    again = adopt_nugget_edits(campaign.slug, "anna")
    assert [t.status for t in again.topics] == ["already adopted", "unchanged"]
    assert NuggetEdit.objects.count() == 4 and len(stored()) == 4


def test_a_dry_run_changes_nothing_and_says_what_a_real_run_would(campaign):
    answer_all(campaign, campaign.invited.get(), {"t1": (T1_FINAL, T1_HISTORY)})
    rows, label_rows = stored(), labels()
    version = Collection.objects.get(name=NAME).data_version

    adoption = adopt_nugget_edits(campaign.slug, "anna", dry_run=True)

    assert adoption.dry_run and [t.status for t in adoption.topics] == ["adopted", "unchanged"]
    assert adoption.result.counts["nuggets removed"] == 1
    assert adoption.result.counts["nuggets added"] == 1
    assert "would adopt 1 topic(s)" in adoption.summary()
    assert stored() == rows and labels() == label_rows
    assert not NuggetEdit.objects.exists()
    assert Collection.objects.get(name=NAME).data_version == version


def test_a_bad_stored_answer_refuses_every_topic(campaign):
    done = answer_all(campaign, campaign.invited.get(), {"t1": (T1_FINAL, T1_HISTORY)})
    rows, label_rows = stored(), labels()
    broken = {"nuggets": [n("x", "critical")], "history": []}
    Assignment.objects.filter(pk=done["t2"].pk).update(answer=broken)

    with pytest.raises(AdoptionError, match=r"topic 't2'.*importance must be vital or okay"):
        adopt_nugget_edits(campaign.slug, "anna")

    # t1 came first and was fine: it is not written either.
    assert stored() == rows and labels() == label_rows
    assert not NuggetEdit.objects.exists()


def test_nuggets_changed_since_the_snapshot_are_not_overwritten(campaign, tmp_path):
    answer_all(campaign, campaign.invited.get(), {"t1": (T1_FINAL, T1_HISTORY)})
    edited = json.loads(json.dumps(NUGGETS))
    edited[0]["nuggets"][0]["text"] = "The moon's gravity pulls the seas"
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "e.jsonl", edited))
    rows = stored()
    with pytest.raises(AdoptionError, match="changed since the campaign was made"):
        adopt_nugget_edits(campaign.slug, "anna", topic="t1")
    assert stored() == rows


def test_the_command_adopts_one_topic_or_says_what_is_wrong(campaign):
    answer_all(campaign, campaign.invited.get(), {"t1": (T1_FINAL, T1_HISTORY)})
    out = StringIO()
    call_command(
        "adopt_nugget_edits",
        "--campaign",
        campaign.slug,
        "--annotator",
        "anna",
        "--topic",
        "t1",
        "--dry-run",
        stdout=out,
    )
    assert "t1: adopted" in out.getvalue() and "would adopt 1 topic(s)" in out.getvalue()
    assert not NuggetEdit.objects.exists()
    out = StringIO()
    call_command(
        "adopt_nugget_edits",
        "--campaign",
        campaign.slug,
        "--annotator",
        "anna",
        "--topic",
        "t1",
        stdout=out,
    )
    assert NuggetEdit.objects.count() == 4 and "t2" not in out.getvalue()
    make_annotator("ben")
    rating = make_campaign(PASSAGE_RATING)
    for args, message in [
        (["--campaign", "nope", "--annotator", "anna"], "no campaign 'nope'"),
        (["--campaign", campaign.slug, "--annotator", "zed"], "no account 'zed'"),
        (["--campaign", campaign.slug, "--annotator", "ben"], "ben has no submitted answer"),
        (["--campaign", campaign.slug, "--annotator", "anna", "--topic", "t9"], "for 't9'"),
        (["--campaign", rating.slug, "--annotator", "anna"], "not nugget post-editing"),
    ]:
        with pytest.raises(CommandError, match=message):
            call_command("adopt_nugget_edits", *args)


def test_the_topic_page_shows_the_edit_history(campaign):
    answer_all(campaign, campaign.invited.get(), {"t1": (T1_FINAL, T1_HISTORY)})
    researcher = make_annotator("rita")
    add_role(researcher, RESEARCHER)
    client = Client()
    client.force_login(researcher)
    topic = campaign.collection.topics.get(external_id="t1")
    url = reverse("nuggets-topic", args=[campaign.collection_id, topic.pk])
    assert "nugget-edits" not in client.get(url).content.decode()
    adopt_nugget_edits(campaign.slug, "anna")
    html = client.get(url).content.decode()
    assert html.count('class="nugget-edit"') == 4
    assert "The sun raises a smaller tide" in html and campaign.slug in html


def test_reimporting_a_file_with_moved_nuggets_keeps_their_labels(tmp_path):
    load_all(tmp_path)
    before = {row[3]: row[0] for row in stored()}
    edited = json.loads(json.dumps(NUGGETS))
    edited[0]["nuggets"].insert(0, n("Tides rise and fall twice a day"))
    edited[0]["nuggets"][1], edited[0]["nuggets"][3] = (
        edited[0]["nuggets"][3],
        edited[0]["nuggets"][1],
    )
    call_command("import_nuggets", "--collection", NAME, write_lines(tmp_path / "m.jsonl", edited))
    t1 = [row for row in stored() if row[1] == "t1"]
    assert [row[3] for row in t1] == ["Tides rise and fall twice a day", SPRING, SUN, MOON]
    assert [row[0] for row in t1[1:]] == [before[SPRING], before[SUN], before[MOON]]
    assert labels() == {
        "Tides rise and fall twice a day": 0,
        MOON: 2,
        SUN: 2,
        SPRING: 2,
        "A pastry filled with cream": 1,
    }
