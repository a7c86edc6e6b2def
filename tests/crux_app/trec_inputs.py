"""A small TREC-format collection written into tmp_path, and the check that a command fails
with exactly one message and writes nothing."""

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from .importer_inputs import row_counts, write_jsonl, write_lines

TOPICS = {"101": "black bear attacks", "102": "cheap flights to lisbon", "103": "wind power"}
PASSAGES = {f"d{i}": f"passage text {i}" for i in range(8)}


def trec_files(root: Path) -> dict[str, Path]:
    """topics.tsv, passages.tsv, nist.qrels, umbrela.qrels and three runs (bm25 names a
    passage, d9, that passages.tsv lacks)."""
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "topics": write_lines(root / "topics.tsv", [f"{q}\t{t}" for q, t in TOPICS.items()]),
        "passages": write_lines(root / "passages.tsv", [f"{p}\t{t}" for p, t in PASSAGES.items()]),
        "nist": write_lines(
            root / "nist.qrels",
            ["101 0 d0 2", "101 0 d1 0", "101 0 d2 1", "102 0 d3 3", "102 0 d4 0", "103 0 d5 1"],
        ),
        "umbrela": write_lines(
            root / "umbrela.qrels",
            ["101 0 d0 3", "101 0 d1 1", "101 0 d2 0", "102 0 d3 2", "102 0 d4 1", "103 0 d5 0"],
        ),
    }
    rankings = {
        "bm25": {"101": ["d0", "d1", "d2"], "102": ["d3", "d4"], "103": ["d5", "d9"]},
        "dense": {"101": ["d2", "d0"], "102": ["d4", "d3"], "103": ["d6", "d5"]},
        "hybrid": {"101": ["d1", "d0", "d2"], "102": ["d3"], "103": ["d5", "d7"]},
    }
    for name, ranking in rankings.items():
        lines = [
            f"{qid} Q0 {pid} {rank} {10 - rank}.5 {name}"
            for qid, pids in ranking.items()
            for rank, pid in enumerate(pids, start=1)
        ]
        files[name] = write_lines(root / f"{name}.run", lines)
    return files


def topics_jsonl(path: Path) -> Path:
    return write_jsonl(path, [{"id": q, "text": t} for q, t in TOPICS.items()])


def command_fails(command: str, *args: str, message: str) -> None:
    """``manage.py command args`` stops with exactly ``message`` and changes no row."""
    before = row_counts()
    with pytest.raises(CommandError) as error:
        call_command(command, *args)
    assert str(error.value) == message
    assert row_counts() == before
