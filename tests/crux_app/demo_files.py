"""The demo fixture files as the tests read them: paths, constants and small readers."""

import json
import re
from collections import defaultdict
from pathlib import Path

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
