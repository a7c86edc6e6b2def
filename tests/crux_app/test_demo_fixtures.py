"""The demo fixture files are well formed: documents, reports, runs, QA items, expert labels."""

import json
from collections import Counter, defaultdict

import numpy as np
import pytest

from evaluation.crux.method.required_subset import select_required
from tests.crux_app.demo_files import (
    DEMO,
    EXPERT,
    LABELS,
    N_QUESTIONS,
    NO_QUESTION,
    NOT_ASKED,
    PASSAGE_ID,
    PLACEHOLDER_KEY,
    RUNS,
    SYSTEMS,
    TAU,
    TOPICS,
    documents,
    expert_grades,
    expert_ratings,
    qa_items,
    reports,
    run_passages,
    run_rows,
)


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
