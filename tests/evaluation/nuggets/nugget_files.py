"""Small nuggetizer and TREC RAG files for the import tests, written as the tools write them
(``json.dumps`` per line), in the order the exports list them."""

import json
from pathlib import Path

NUGGETS = [
    {
        "qid": "t1",
        "query": "why do tides happen",
        "nuggets": [
            {"text": "The moon's gravity pulls the oceans", "importance": "vital"},
            {"text": "The sun also raises tides", "importance": "vital"},
            {"text": "Spring tides follow new and full moons", "importance": "okay"},
        ],
    },
    {
        "qid": "t2",
        "query": "what is a \u00e9clair",
        "nuggets": [{"text": "A pastry filled with cream", "importance": "okay"}],
    },
]

ANSWERS = [
    {
        "run_id": "runA",
        "topic_id": "t1",
        "topic": "why do tides happen",
        "references": ["d1", "d2", "d3"],
        "response_length": 14,
        "answer": [
            {"text": "The moon's gravity pulls on the oceans.", "citations": [0]},
            {"text": "This makes bulges.", "citations": []},
            {"text": "The sun adds a smaller pull.", "citations": [1, 2]},
        ],
    },
    {
        "run_id": "runA",
        "topic_id": "t2",
        "topic": "what is a \u00e9clair",
        "references": ["d4"],
        "response_length": 3,
        "answer": [{"text": "A cream pastry.", "citations": [0]}],
    },
    {
        "run_id": "runB",
        "topic_id": "t1",
        "topic": "why do tides happen",
        "references": ["d3"],
        "response_length": 4,
        "answer": [{"text": "Tides come from wind.", "citations": [0]}],
    },
]

ASSIGNMENTS = [
    {
        "qid": "t1",
        "run_id": "runA",
        "nuggets": [
            {
                "text": "The moon's gravity pulls the oceans",
                "importance": "vital",
                "assignment": "support",
            },
            {"text": "The sun also raises tides", "importance": "vital", "assignment": "support"},
            {
                "text": "Spring tides follow new and full moons",
                "importance": "okay",
                "assignment": "not_support",
            },
        ],
    },
    {
        "qid": "t2",
        "run_id": "runA",
        "nuggets": [
            {
                "text": "A pastry filled with cream",
                "importance": "okay",
                "assignment": "partial_support",
            }
        ],
    },
    {
        "qid": "t1",
        "run_id": "runB",
        "nuggets": [
            {
                "text": "The moon's gravity pulls the oceans",
                "importance": "vital",
                "assignment": "not_support",
            },
            {
                "text": "The sun also raises tides",
                "importance": "vital",
                "assignment": "partial_support",
            },
            {
                "text": "Spring tides follow new and full moons",
                "importance": "okay",
                "assignment": "not_support",
            },
        ],
    },
]


def write_lines(path: Path, objects: list[dict]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in objects), encoding="utf-8")
    return path
