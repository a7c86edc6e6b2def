"""Inputs for the importer tests: small files written into tmp_path, and row-count snapshots."""

import json
import shutil
from pathlib import Path

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
    SubtopicQrel,
    Topic,
)

MODELS = (
    Collection,
    Topic,
    SubQuestion,
    Passage,
    Run,
    RunEntry,
    GeneratedOutput,
    OutputContext,
    Judge,
    Judgment,
    CoverageLabel,
    PassageQrel,
    SubtopicQrel,
)


def row_counts() -> dict[str, int]:
    """How many rows each imported model holds (to show a failed import changed nothing)."""
    return {model.__name__: model.objects.count() for model in MODELS}


def write_jsonl(path: Path, records: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_lines(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def copy_platform(sample: Path, target: Path) -> Path:
    """A writable copy of the platform sample, to spoil one file of it."""
    shutil.copytree(sample, target)
    return target


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def hub_release(root: Path, split: str = "testb", tau: int = 3) -> Path:
    """A two-topic CRUX hub release: root/ranking_{tau}/ plus root/passages/."""
    folder = root / f"ranking_{tau}"
    questions = {
        "t1": ["What happened?", "Who was involved?", "When?"],
        "t2": ["Why?", None, "Where?"],
    }
    write_lines(folder / f"{split}_topics.tsv", ["t1\tReport on event one", "t2\tReport on two"])
    write_jsonl(
        folder / f"{split}_topics.jsonl",
        [
            {"example_id": q, "topic": f"Report on {q}", "questions": qs, "report": f"{q} report"}
            for q, qs in questions.items()
        ],
    )
    write_jsonl(
        folder / f"{split}_questions.jsonl",
        [
            {"example_id": q, "topic": f"Report on {q}", "questions": qs}
            for q, qs in questions.items()
        ],
    )
    passages = [f"{q}:{d}#{p}" for q in questions for d, p in ((0, 0), (0, 1), (1, 2))]
    write_jsonl(
        root / "passages" / "corpus.jsonl",
        [{"id": p, "contents": f"text of {p}"} for p in passages],
    )
    judgements = [
        {"example_id": p.split(":")[0], "pid": p, "rating": [i % 6, (i + 2) % 6, 0]}
        for i, p in enumerate(passages)
    ]
    judgements += [{"example_id": q, "pid": f"{q}:report", "rating": [5, 4, 3]} for q in questions]
    write_jsonl(folder / f"{split}_oracle-passages_judgements.jsonl", judgements)
    write_lines(
        folder / f"{split}_qrels_pr.txt",
        [f"{p.split(':')[0]} 0 {p} {3 - i % 3}" for i, p in enumerate(passages)],
    )
    write_lines(
        folder / f"{split}_div_qrels_pr.txt",
        [f"{p.split(':')[0]} {1 + i % 3} {p} {i % 2}" for i, p in enumerate(passages)],
    )
    return root


def labeling_import_fails(folder: Path, message: str) -> None:
    """import_crux_labeling of ``folder`` stops with exactly ``message`` and writes nothing."""
    import pytest
    from django.core.management import CommandError, call_command

    before = row_counts()
    with pytest.raises(CommandError) as error:
        call_command("import_crux_labeling", "--collection", "duc", str(folder))
    assert str(error.value) == message
    assert row_counts() == before
