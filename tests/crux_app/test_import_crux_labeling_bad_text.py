"""The CRUX labeling importer on text it cannot store: NUL characters, deep nesting, runs
without any topic (FILE:LINE errors, nothing written)."""

import json

import pytest

from .importer_inputs import (
    copy_platform,
    read_jsonl,
    write_jsonl,
    write_lines,
)
from .importer_inputs import labeling_import_fails as _fails

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("docids", "reason"),
    [
        ("['a\\x00', 'b']", "holds a NUL character (\\u0000), which PostgreSQL text cannot store"),
        ('["a\\u0000"]', "holds a NUL character (\\u0000), which PostgreSQL text cannot store"),
        ("[" * 70 + "]" * 70, "JSON nested deeper than 64 levels"),
        ("[" * 100_000 + "]" * 100_000, "is a string that holds no list"),
    ],
)
def test_a_docids_string_holding_unstorable_text_or_deep_nesting(
    tmp_path, crux_sample_dir, docids, reason
):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = read_jsonl(folder / "bm25.jsonl")
    lines[1]["docids"] = docids
    write_jsonl(folder / "bm25.jsonl", lines)
    _fails(folder, f"{folder}/bm25.jsonl:2: field 'docids' {reason}")


def test_a_document_with_a_nul_character_names_file_and_line(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    document = sorted((folder / "documents").iterdir())[0]
    record = json.loads(document.read_text())
    document.write_text('{\n"id": ' + json.dumps(record["id"]) + ',\n"contents": "a\\u0000b"\n}')
    _fails(
        folder,
        f"{folder}/documents/{document.name}:3: a JSON string holds a NUL character (\\u0000), "
        "which PostgreSQL text cannot store",
    )


def test_a_deeply_nested_document_names_file_and_line(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    document = sorted((folder / "documents").iterdir())[0]
    document.write_text('{"id": "x",\n"extra": ' + "[" * 100_000 + "]" * 100_000 + "}")
    _fails(folder, f"{folder}/documents/{document.name}:2: JSON nested deeper than 64 levels")


def test_a_run_line_with_a_nul_byte_names_file_and_line(tmp_path, crux_sample_dir):
    folder = copy_platform(crux_sample_dir, tmp_path / "p")
    lines = (folder / "bm25.run").read_bytes().splitlines()
    lines[1] = lines[1].replace(b" ", b"\x00 ", 1)
    (folder / "bm25.run").write_bytes(b"\n".join(lines) + b"\n")
    _fails(
        folder,
        f"{folder}/bm25.run:2: the line holds a NUL character (\\u0000), which PostgreSQL text "
        "cannot store",
    )


def test_runs_without_any_topic_do_not_create_an_empty_collection(tmp_path):
    folder = tmp_path / "p"
    write_lines(folder / "bm25.run", [])
    _fails(folder, f"{folder}: no topics: collection 'duc' would have none")
