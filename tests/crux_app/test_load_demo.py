"""`load_demo` imports the demo collections once and idempotently, and creates the accounts."""

import json
import re
import stat
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpRequest

from crux_app.account_setup import ensure_account
from crux_app.models import (
    Collection,
    CoverageLabel,
    GeneratedOutput,
    Judge,
    Judgment,
    OutputContext,
    Passage,
    PassageQrel,
    Run,
    RunEntry,
    SubQuestion,
    Topic,
)
from crux_app.roles import ANNOTATOR, RESEARCHER
from tests.crux_app.demo_files import (
    EXPERT,
    N_QUESTIONS,
    QA_FILE,
    RUNS,
    SYSTEMS,
    TOPICS,
    documents,
    expert_grades,
    expert_ratings,
    qa_items,
    reports,
    run_rows,
)


def logs_in(client, username: str, password: str) -> bool:
    """client.login through every authentication backend, the axes lockout check included
    (it needs a request)."""
    return client.login(request=HttpRequest(), username=username, password=password)


def load_demo(passwords_file: Path, *args: str) -> str:
    out = StringIO()
    call_command("load_demo", "--passwords-file", str(passwords_file), *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def passwords_file(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    monkeypatch.delenv("DEMO_ANNOTATOR_PASSWORD", raising=False)
    return tmp_path / "var" / "demo_passwords.json"


SNAPSHOT_MODELS = (
    Collection, Topic, SubQuestion, Passage, Run, RunEntry, GeneratedOutput, OutputContext,
    PassageQrel, Judge, Judgment, CoverageLabel,
)  # fmt: skip


def db_snapshot() -> dict:
    """Everything `load_demo` may write, in a comparable form."""
    users = get_user_model().objects.order_by("username")
    return {
        "counts": {model.__name__: model.objects.count() for model in SNAPSHOT_MODELS},
        "users": [
            (
                u.username,
                u.password,
                u.is_staff,
                sorted(u.groups.values_list("name", flat=True)),
                u.user_permissions.count(),
            )
            for u in users
        ],
    }


@pytest.mark.django_db
def test_load_demo_imports_both_collections_and_creates_the_accounts(client, passwords_file):
    load_demo(passwords_file)

    demo = Collection.objects.get(name="demo")
    assert demo.topics.count() == len(TOPICS)
    subquestions = SubQuestion.objects.filter(topic__collection=demo)
    assert subquestions.count() == len(TOPICS) * N_QUESTIONS
    placeholders = subquestions.filter(is_placeholder=True)
    assert [(s.topic.external_id, s.position) for s in placeholders] == [("demo-3", 6)]
    assert demo.passages.count() == len(documents())
    assert not demo.passages.filter(has_text=False).exists()
    assert {r.name: r.entries.count() for r in demo.runs.all()} == {
        name: sum(len(v) for v in run_rows(name).values()) for name in RUNS
    }
    outputs = Counter(demo.outputs.values_list("system", flat=True))
    assert outputs == {system: len(TOPICS) for system in SYSTEMS}
    contexts = OutputContext.objects.filter(output__collection=demo).count()
    assert contexts == sum(row["k"] for row in reports().values())
    # The expert's labels: grades, ratings (not the placeholder's) and report coverage.
    grades = PassageQrel.objects.filter(topic__collection=demo)
    assert set(grades.values_list("source", flat=True)) == {EXPERT}
    stored = grades.values_list("topic__external_id", "passage__external_id", "grade")
    assert {(t, p): g for t, p, g in stored} == expert_grades()
    expert = Judge.objects.get(name=EXPERT)
    assert expert.kind == Judge.Kind.HUMAN
    rated = Judgment.objects.filter(judge=expert, task=Judgment.Task.PASSAGE_RATING)
    cells = sum(v >= 0 for row in expert_ratings().values() for v in row["relevances"].values())
    assert rated.count() == cells
    assert CoverageLabel.objects.filter(judge=expert, output__collection=demo).count() == 12

    qa = Collection.objects.get(name="demo-qa")
    items = qa_items()
    assert qa.topics.count() == len(items)
    answers = dict(qa.topics.values_list("external_id", "gold_answers"))
    assert answers == {item["id"]: item["answers"] for item in items}
    assert qa.passages.count() == sum(len(item["contexts"]) for item in items)
    gold = sum(ctx["gold"] for item in items for ctx in item["contexts"])
    assert PassageQrel.objects.filter(topic__collection=qa).count() == gold

    researcher = get_user_model().objects.get(username="researcher")
    assert researcher.is_staff
    assert list(researcher.groups.values_list("name", flat=True)) == [RESEARCHER]
    # The demo's researcher manages the workspace `default`, where the demo collections are.
    membership = researcher.workspace_memberships.get()
    assert (membership.workspace.name, membership.role) == ("default", "manager")
    assert {demo.workspace_id, qa.workspace_id} == {membership.workspace_id}
    annotator = get_user_model().objects.get(username="annotator")
    assert not annotator.is_staff
    assert list(annotator.groups.values_list("name", flat=True)) == [ANNOTATOR]
    kept = json.loads(passwords_file.read_text())
    assert logs_in(client, "researcher", kept["researcher"])
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/crux_app/collection/").status_code == 200
    assert not annotator.workspace_memberships.exists()
    assert logs_in(client, "annotator", kept["annotator"])


@pytest.mark.django_db
def test_load_demo_twice_changes_nothing(passwords_file):
    load_demo(passwords_file)
    first = db_snapshot()
    kept = passwords_file.read_text()
    load_demo(passwords_file)
    assert db_snapshot() == first
    assert passwords_file.read_text() == kept


@pytest.mark.django_db
def test_load_demo_generates_random_passwords_once_and_keeps_them_private(client, passwords_file):
    output = load_demo(passwords_file)
    kept = json.loads(passwords_file.read_text())
    assert set(kept) == {"researcher", "annotator"}
    assert kept["researcher"] != kept["annotator"]
    assert all(len(password) >= 16 for password in kept.values())
    # The former fixed public passwords are gone, and the file is the owner's alone.
    assert not {"crux-demo-researcher", "crux-demo-annotator"} & set(kept.values())
    assert stat.S_IMODE(passwords_file.stat().st_mode) == 0o600
    assert not any(password in output for password in kept.values())
    for username, password in kept.items():
        assert logs_in(client, username, password)
        assert not logs_in(client, username, f"crux-demo-{username}")

    # Another install (another file) gets other passwords; the accounts follow the file.
    other = passwords_file.with_name("other.json")
    load_demo(other)
    assert json.loads(other.read_text())["researcher"] != kept["researcher"]
    assert logs_in(client, "researcher", json.loads(other.read_text())["researcher"])
    assert not logs_in(client, "researcher", kept["researcher"])


@pytest.mark.django_db
def test_an_upgraded_demo_replaces_the_old_public_passwords(client, passwords_file):
    ensure_account("researcher", "crux-demo-researcher", RESEARCHER, staff=True)
    ensure_account("annotator", "crux-demo-annotator", ANNOTATOR)
    output = load_demo(passwords_file)
    assert "account researcher: updated" in output
    assert not logs_in(client, "researcher", "crux-demo-researcher")
    assert not logs_in(client, "annotator", "crux-demo-annotator")
    assert logs_in(client, "annotator", json.loads(passwords_file.read_text())["annotator"])


@pytest.mark.django_db
def test_load_demo_takes_passwords_from_the_environment(client, passwords_file, monkeypatch):
    load_demo(passwords_file)
    kept = json.loads(passwords_file.read_text())
    monkeypatch.setenv("DEMO_PASSWORD", "another-secret-1")
    monkeypatch.setenv("DEMO_ANNOTATOR_PASSWORD", "another-secret-2")
    load_demo(passwords_file)
    assert logs_in(client, "researcher", "another-secret-1")
    assert logs_in(client, "annotator", "another-secret-2")
    assert not logs_in(client, "researcher", kept["researcher"])
    assert json.loads(passwords_file.read_text()) == kept  # the kept ones are not overwritten


@pytest.mark.django_db
def test_without_a_passwords_file_new_accounts_get_a_printed_random_password(client, monkeypatch):
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    monkeypatch.delenv("DEMO_ANNOTATOR_PASSWORD", raising=False)
    out = StringIO()
    call_command("load_demo", stdout=out)
    printed = dict(re.findall(r"account (\w+): created \(password: (\S+)\)", out.getvalue()))
    assert set(printed) == {"researcher", "annotator"}
    assert logs_in(client, "researcher", printed["researcher"])
    assert not logs_in(client, "researcher", "crux-demo-researcher")
    # A second run keeps the accounts' passwords and prints none.
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert "password" not in out.getvalue()
    assert logs_in(client, "annotator", printed["annotator"])


@pytest.mark.django_db
def test_load_demo_leaves_nothing_behind_when_an_import_fails(tmp_path):
    broken = tmp_path / "broken_qa.jsonl"
    broken.write_text(QA_FILE.read_text().splitlines()[0] + "\n" + '{"id": "x", "answers": []}\n')
    with pytest.raises(CommandError, match=r"broken_qa\.jsonl.*2"):
        load_demo(tmp_path / "passwords.json", "--qa-file", str(broken))
    assert not Collection.objects.exists()
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_create_researcher_makes_a_staff_researcher_and_refuses_short_passwords(client):
    with pytest.raises(CommandError, match="at least 8 characters"):
        call_command("create_researcher", "alice", "--password", "short", stdout=StringIO())
    assert not get_user_model().objects.filter(username="alice").exists()
    call_command(
        "create_researcher", "alice", "--password", "long-enough-1", "--staff", stdout=StringIO()
    )
    alice = get_user_model().objects.get(username="alice")
    assert alice.is_staff
    assert list(alice.groups.values_list("name", flat=True)) == [RESEARCHER]
    assert logs_in(client, "alice", "long-enough-1")
