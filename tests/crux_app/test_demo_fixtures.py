"""The demo fixtures are well formed, and `load_demo` imports them once and idempotently."""

import json
import re
import stat
from collections import Counter, defaultdict
from io import StringIO
from pathlib import Path

import numpy as np
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
from evaluation.crux.method.required_subset import select_required

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DEMO = FIXTURES / "demo"
QA_FILE = FIXTURES / "demo_qa.jsonl"
TOPICS = ["demo-1", "demo-2", "demo-3", "demo-4"]
SYSTEMS = ["oracle", "bm25", "dense"]
RUNS = ["bm25", "dense"]
N_QUESTIONS = 10
PASSAGE_ID = re.compile(r"^(demo-\d+):(\d+)#(\d+)$")
EXPERT = "expert"
LABELS = DEMO / "labels"
TAU = 3
NOT_ASKED, NO_QUESTION, PLACEHOLDER_KEY = -1, -2, "NA"


def documents() -> dict[str, dict]:
    return {path.name: json.loads(path.read_text()) for path in (DEMO / "documents").iterdir()}


def reports() -> dict[str, dict]:
    lines = (DEMO / "oracle.jsonl").read_text().splitlines()
    return {row["qid"]: row for row in map(json.loads, lines)}


def run_rows(name: str) -> dict[str, list[tuple[int, str, float]]]:
    """Topic -> [(rank, passage id, score)] in file order; asserts the 6-column TREC shape."""
    rows: dict[str, list[tuple[int, str, float]]] = defaultdict(list)
    for line in (DEMO / f"{name}.run").read_text().splitlines():
        qid, q0, pid, rank, score, tag = line.split()
        assert (q0, tag) == ("Q0", f"demo_{name}"), line
        rows[qid].append((int(rank), pid, float(score)))
    return rows


def expert_ratings() -> dict[tuple[str, str], dict]:
    """(topic, passage) -> the expert's passage-rating line."""
    lines = (LABELS / f"{EXPERT}_qrels.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    ratings = {(row["id"], row["document"]): row for row in rows}
    assert len(ratings) == len(rows), "a (topic, passage) pair is rated twice"
    return ratings


def expert_grades() -> dict[tuple[str, str], int]:
    grades: dict[tuple[str, str], int] = {}
    for line in (DEMO / f"{EXPERT}.qrels").read_text().splitlines():
        qid, iteration, pid, grade = line.split()
        assert iteration == "0", line
        assert (qid, pid) not in grades, line
        grades[qid, pid] = int(grade)
    return grades


def run_passages(topic: str) -> set[str]:
    return {pid for name in RUNS for _, pid, _ in run_rows(name)[topic]}


def qa_items() -> list[dict]:
    return [json.loads(line) for line in QA_FILE.read_text().splitlines()]


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


def test_documents_are_named_by_their_ids_and_hold_short_passages():
    docs = documents()
    per_topic = Counter()
    for name, doc in docs.items():
        assert set(doc) == {"id", "contents"}
        assert doc["id"] == name
        match = PASSAGE_ID.match(name)
        assert match, name
        per_topic[match.group(1)] += 1
        assert 60 <= len(doc["contents"].split()) <= 120, name
    assert sorted(per_topic) == TOPICS
    assert all(count >= 15 for count in per_topic.values())
    # Passage numbers run through the topic, as in the platform's ids (doc 0 holds #0..#2, ...).
    numbers = [(m.group(1), m.group(3)) for m in map(PASSAGE_ID.match, docs)]
    assert len(numbers) == len(set(numbers))


def test_reports_cover_every_topic_and_system_with_ten_question_positions():
    rows = reports()
    assert set(rows) == {t if s == "oracle" else f"{s}_{t}" for t in TOPICS for s in SYSTEMS}
    docs = documents()
    for topic in TOPICS:
        lines = [rows[topic], rows[f"bm25_{topic}"], rows[f"dense_{topic}"]]
        for row in lines:
            assert set(row) == {
                "qid", "topic", "questions", "type", "k", "docids", "report", "response"
            }  # fmt: skip
            assert len(row["questions"]) == N_QUESTIONS
            assert row["k"] == len(row["docids"]) > 0
            assert all(pid in docs for pid in row["docids"]), row["qid"]
            assert 120 <= len(row["response"].split()) <= 200, row["qid"]
            # A topic's lines share its request, sub-questions and reference report.
            for key in ("topic", "questions", "report"):
                assert row[key] == lines[0][key], (row["qid"], key)
        assert all(pid.startswith(f"{topic}:") for pid in rows[topic]["docids"])
    nulls = {t: [i for i, q in enumerate(rows[t]["questions"]) if q is None] for t in TOPICS}
    assert nulls == {"demo-1": [], "demo-2": [], "demo-3": [6], "demo-4": []}


def test_runs_rank_real_orders_with_decreasing_scores_over_known_passages():
    docs = documents()
    for name in RUNS:
        rows = run_rows(name)
        assert sorted(rows) == TOPICS
        foreign = 0
        for topic, entries in rows.items():
            ranks = [rank for rank, _, _ in entries]
            scores = [score for _, _, score in entries]
            pids = [pid for _, pid, _ in entries]
            assert ranks == list(range(1, len(entries) + 1)), (name, topic)
            assert len(entries) >= 10
            assert all(a > b for a, b in zip(scores, scores[1:], strict=False)), (name, topic)
            assert len(set(pids)) == len(pids)
            assert all(pid in docs for pid in pids), (name, topic)
            foreign += sum(not pid.startswith(f"{topic}:") for pid in pids)
        assert foreign > 0, f"{name}.run has no passages of other topics as distractors"


def test_retrieval_reports_were_generated_from_their_runs_top_k():
    rows = reports()
    for name in RUNS:
        ranked = run_rows(name)
        for topic in TOPICS:
            row = rows[f"{name}_{topic}"]
            assert row["docids"] == [pid for _, pid, _ in ranked[topic][: row["k"]]]


def test_qa_items_have_answers_and_one_or_two_gold_contexts():
    items = qa_items()
    assert 8 <= len(items) <= 10
    assert len({item["id"] for item in items}) == len(items)
    context_ids = [ctx["id"] for item in items for ctx in item["contexts"]]
    assert len(set(context_ids)) == len(context_ids)
    for item in items:
        assert set(item) == {"id", "question", "answers", "contexts"}
        assert item["answers"] and all(isinstance(a, str) and a for a in item["answers"])
        assert 4 <= len(item["contexts"]) <= 5, item["id"]
        assert all(set(ctx) == {"id", "text", "gold"} for ctx in item["contexts"])
        assert 1 <= sum(ctx["gold"] for ctx in item["contexts"]) <= 2, item["id"]
    assert any(len(item["answers"]) >= 2 for item in items)


# ---- The expert's labels: written by the passages' authors ----------------------------------


def test_the_expert_rates_every_question_of_every_topic_and_run_passage():
    ratings = expert_ratings()
    docs = documents()
    questions = {t: reports()[t]["questions"] for t in TOPICS}
    for topic in TOPICS:
        own = {pid for pid in docs if pid.startswith(f"{topic}:")}
        # Every passage of the topic, and the other topics' passages its runs rank.
        assert {pid for t, pid in ratings if t == topic} == own | run_passages(topic), topic
    levels = Counter()
    for (topic, pid), row in ratings.items():
        assert set(row) == {"id", "document", "relevances", "rationales"}
        keys = [str(i) for i in range(N_QUESTIONS)]
        assert list(row["relevances"]) == keys and list(row["rationales"]) == keys
        for key, question in zip(keys, questions[topic], strict=True):
            rating, span = row["relevances"][key], row["rationales"][key]
            if question is None:
                assert (rating, span) == (NOT_ASKED, ""), (pid, key)
                continue
            assert rating in range(6), (pid, key)
            # A rationale is a span copied from the passage, given for every rating above 0.
            assert bool(span) == (rating > 0), (pid, key)
            assert span in docs[pid]["contents"], (pid, key)
            if not pid.startswith(f"{topic}:"):
                assert rating == 0, f"{pid} is about another topic than {topic}"
            levels[rating] += 1
    # Realistic, not uniform: most cells 0, every level used, partial ratings common.
    assert levels[0] > 0.8 * sum(levels.values())
    assert all(levels[level] for level in range(6))
    assert levels[1] + levels[2] >= 20


def test_every_sub_question_is_answered_by_a_passage_of_its_topic():
    ratings = expert_ratings()
    for topic in TOPICS:
        for i, question in enumerate(reports()[topic]["questions"]):
            best = max(row["relevances"][str(i)] for (t, pid), row in ratings.items() if t == topic)
            assert best >= TAU if question is not None else best == NOT_ASKED, (topic, i)


def test_the_expert_labels_the_coverage_of_every_report():
    lines = (LABELS / f"{EXPERT}_qlabels.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    by_id = {row["id"]: row for row in rows}
    assert len(by_id) == len(rows)
    assert set(by_id) == set(reports())
    for qid, row in by_id.items():
        report = reports()[qid]
        assert set(row) == {"id", "question_based_nugget", "answerability", "coverage"}
        keys = [PLACEHOLDER_KEY if q is None else q for q in report["questions"]]
        assert list(row["question_based_nugget"]) == keys, qid
        valid = []
        for question, value in zip(report["questions"], row["answerability"], strict=True):
            if question is None:
                assert value == NO_QUESTION, qid
                assert row["question_based_nugget"][PLACEHOLDER_KEY] == ""
                continue
            span = row["question_based_nugget"][question]
            assert value in (0, 1), qid
            assert bool(span) == (value == 1), (qid, question)
            assert span in report["response"], (qid, question)
            valid.append(value)
        assert row["coverage"] == pytest.approx(sum(valid) / len(valid)), qid
    # The oracle reports cover more than the retrieval ones, and the systems differ.
    coverage = defaultdict(list)
    for qid, row in by_id.items():
        coverage["oracle" if qid in TOPICS else qid.split("_")[0]].append(row["coverage"])
    mean = {system: np.mean(values) for system, values in coverage.items()}
    assert mean["oracle"] > max(mean["bm25"], mean["dense"])
    assert mean["bm25"] != mean["dense"]


def expected_grades(topic: str, ratings: dict) -> dict[str, int]:
    """The documented rule: CRUX's greedy required subset over the topic's own passages in
    passage-id order (3 required; of the rest, 1 when every rating is below the required
    passages' best, else 2), except that a passage that answers no sub-question (every rating
    below tau = 3) is 0, not relevant."""
    # Passage-id order is the order the import stores them in, so the order the greedy breaks
    # ties in.
    own = sorted(
        ((pid, row) for (t, pid), row in ratings.items() if t == topic and pid.startswith(f"{t}:")),
        key=lambda item: item[0],
    )
    matrix = np.array([[row["relevances"][str(i)] for i in range(N_QUESTIONS)] for _, row in own])
    valid = np.array([q is not None for q in reports()[topic]["questions"]])
    subset = select_required(
        matrix[None].astype(float), np.ones((1, len(own)), bool), valid[None], TAU
    )
    assert not subset.stalled[0]
    grades = {}
    for (pid, _), grade, ratings_row in zip(own, subset.grades[0], matrix, strict=True):
        answers = (ratings_row[valid] >= TAU).any()
        grades[pid] = int(grade) if answers else 0
    return grades


def test_the_expert_grades_follow_from_the_ratings():
    ratings = expert_ratings()
    grades = expert_grades()
    # Every passage of each topic is graded; other topics' passages are left out (non-relevant).
    assert set(grades) == {(t, pid) for t, pid in ratings if pid.startswith(f"{t}:")}
    lines = (DEMO / f"{EXPERT}.qrels").read_text().splitlines()
    assert all(len(line.split()) == 4 for line in lines)
    for topic in TOPICS:
        mine = {pid: g for (t, pid), g in grades.items() if t == topic}
        assert mine == expected_grades(topic, ratings), topic
        # The required passages together answer every sub-question of the topic.
        required = [pid for pid, g in mine.items() if g == 3]
        for i, question in enumerate(reports()[topic]["questions"]):
            if question is not None:
                assert max(ratings[topic, pid]["relevances"][str(i)] for pid in required) >= TAU
    counts = Counter(grades.values())
    assert all(counts[g] for g in (0, 1, 2, 3)), counts


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
    annotator = get_user_model().objects.get(username="annotator")
    assert not annotator.is_staff
    assert list(annotator.groups.values_list("name", flat=True)) == [ANNOTATOR]
    kept = json.loads(passwords_file.read_text())
    assert logs_in(client, "researcher", kept["researcher"])
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/crux_app/collection/").status_code == 200
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
