"""The nugget formats on the upload page: the nuggetizer's create output, the TREC RAG answers
and one judge's assignments go in through the browser form, as the import job the page starts,
and store the same rows as the commands."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import GeneratedOutput, Job, Judge
from crux_app.tasks import import_data
from evaluation.nuggets.models import Nugget, NuggetAssignment
from tests.evaluation.nuggets.nugget_files import ANSWERS, ASSIGNMENTS, NUGGETS

pytestmark = pytest.mark.django_db
NAME = "tides"


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"


def _jsonl(name: str, objects: list[dict]) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, "".join(json.dumps(o) + "\n" for o in objects).encode())


def _upload_and_run(client, data: dict) -> Job:
    """Post the form, then do what the worker does with the job it started."""
    before = set(Job.objects.values_list("pk", flat=True))
    response = client.post(reverse("upload"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    job = Job.objects.exclude(pk__in=before).get(kind="import")
    import_data(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED, job.message
    return job


def test_the_page_offers_the_nugget_formats(researcher_client):
    page = researcher_client.get(reverse("upload")).content.decode()
    for value in ("nuggets", "answers", "nugget-assignments", "nugget-ratings"):
        assert f'value="{value}"' in page


def test_nuggets_answers_and_assignments_uploaded_store_their_rows(researcher_client):
    nuggets = {"format": "nuggets", "collection": NAME, "file": _jsonl("n.jsonl", NUGGETS)}
    _upload_and_run(researcher_client, nuggets)
    stored = Nugget.objects.filter(topic__collection__name=NAME).order_by(
        "topic__external_id", "position"
    )
    assert [(n.topic.external_id, n.position, n.text, n.importance) for n in stored] == [
        ("t1", 0, "The moon's gravity pulls the oceans", "vital"),
        ("t1", 1, "The sun also raises tides", "vital"),
        ("t1", 2, "Spring tides follow new and full moons", "okay"),
        ("t2", 0, "A pastry filled with cream", "okay"),
    ]

    answers = {"format": "answers", "collection": NAME, "file": _jsonl("a.jsonl", ANSWERS)}
    _upload_and_run(researcher_client, answers)
    assert GeneratedOutput.objects.filter(run__collection__name=NAME).count() == 3

    assignments = {
        "format": "nugget-assignments",
        "collection": NAME,
        "judge": "amy",
        "judge_kind": "human",
        "file": _jsonl("s.jsonl", ASSIGNMENTS),
    }
    _upload_and_run(researcher_client, assignments)
    judge = Judge.objects.get(name="amy")
    assert (judge.kind, judge.model_id) == ("human", "")
    rows = NuggetAssignment.objects.filter(judge=judge)
    assert sorted(
        (a.output.run.name, a.nugget.topic.external_id, a.nugget.position, a.assignment)
        for a in rows
    ) == [
        ("runA", "t1", 0, "support"),
        ("runA", "t1", 1, "support"),
        ("runA", "t1", 2, "not_support"),
        ("runA", "t2", 0, "partial_support"),
        ("runB", "t1", 0, "not_support"),
        ("runB", "t1", 1, "partial_support"),
        ("runB", "t1", 2, "not_support"),
    ]


def test_assignments_without_a_judge_are_refused_by_the_form(researcher_client):
    data = {"format": "nugget-assignments", "collection": NAME, "file": _jsonl("s.jsonl", [])}
    response = researcher_client.post(reverse("upload"), data)
    assert response.status_code == 400
    assert response.context["form"].errors["judge"] == [
        "Nugget assignments of one judge (nuggetizer assign output) needs this."
    ]
    assert not Job.objects.exists()
