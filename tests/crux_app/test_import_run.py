"""import_run: a TREC run into a collection that already holds its topics and passages."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from crux_app.dataio.imports.crux_labeling import import_crux_labeling
from crux_app.dataio.imports.run import import_run
from crux_app.models import Run

from .importer_inputs import row_counts, write_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def duc(crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)
    return crux_sample_dir


def test_run_import_keeps_ranks_scores_and_line_order(duc):
    result = import_run("duc", duc / "oracle.run", run_name="oracle-again")
    assert result.counts == {"runs": 1, "run entries": 9, "topics": 2}
    run = Run.objects.get(name="oracle-again")
    assert run.metadata == {"tag": "human_eval_oracle"}
    first = run.entries.order_by("line_order").first()
    assert (first.topic.external_id, first.passage.external_id) == (
        "duc04-testb-3",
        "duc04-testb-3:3#10",
    )
    assert (first.rank, first.score) == (4, 0.25)


def test_reimport_replaces_entries(duc, tmp_path):
    import_run("duc", duc / "bm25.run", run_name="r")
    before = row_counts()
    import_run("duc", duc / "bm25.run", run_name="r")
    assert row_counts() == before
    shorter = write_lines(tmp_path / "r.run", ["duc04-testb-3 Q0 duc04-testb-3:9#27 1 2.5 x"])
    import_run("duc", shorter, run_name="r")
    assert Run.objects.get(name="r").entries.count() == 1


def _fails(path, message, collection="duc"):
    before = row_counts()
    with pytest.raises(CommandError) as error:
        call_command("import_run", f"--collection={collection}", "--name=r", str(path))
    assert str(error.value) == message
    assert row_counts() == before


def test_unknown_passage(duc, tmp_path):
    path = write_lines(
        tmp_path / "r.run",
        ["duc04-testb-3 Q0 duc04-testb-3:9#27 1 1.0 x", "duc04-testb-3 Q0 msmarco-1 2 0.5 x"],
    )
    _fails(path, f"{path}:2: unknown passage 'msmarco-1' in collection 'duc'")


def test_unknown_topic(duc, tmp_path):
    path = write_lines(tmp_path / "r.run", ["duc04-testb-1 Q0 duc04-testb-3:9#27 1 1.0 x"])
    _fails(path, f"{path}:1: unknown topic 'duc04-testb-1' in collection 'duc'")


def test_duplicate_entry(duc, tmp_path):
    line = "duc04-testb-3 Q0 duc04-testb-3:9#27 1 1.0 x"
    path = write_lines(tmp_path / "r.run", [line, line])
    _fails(path, f"{path}:2: duplicate entry (duc04-testb-3, duc04-testb-3:9#27), first at line 1")


def test_wrong_field_count(duc, tmp_path):
    path = write_lines(tmp_path / "r.run", ["duc04-testb-3 duc04-testb-3:9#27 1 1.0 x"])
    _fails(
        path,
        f"{path}:1: expected 6 whitespace-separated fields (qid Q0 pid rank score tag), got 5",
    )


def test_rank_that_is_not_an_integer(duc, tmp_path):
    path = write_lines(tmp_path / "r.run", ["duc04-testb-3 Q0 duc04-testb-3:9#27 first 1.0 x"])
    _fails(path, f"{path}:1: rank must be an integer, got 'first'")


def test_score_that_is_not_a_number(duc, tmp_path):
    path = write_lines(tmp_path / "r.run", ["duc04-testb-3 Q0 duc04-testb-3:9#27 1 high x"])
    _fails(path, f"{path}:1: score must be a number, got 'high'")


def test_unknown_collection(tmp_path):
    path = write_lines(tmp_path / "r.run", ["q Q0 p 1 1.0 x"])
    _fails(path, f"{path}: collection 'nowhere' does not exist", collection="nowhere")


def test_command_line_exits_non_zero_with_the_message_on_stderr(tmp_path):
    """The real command line: non-zero exit, FILE:LINE: reason on stderr."""
    path = write_lines(tmp_path / "r.run", ["q Q0 p 1 1.0"])
    database = settings.DATABASES["default"]
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    manage = Path(settings.BASE_DIR) / "manage.py"
    completed = subprocess.run(
        [sys.executable, str(manage), "import_run", "--collection=any", "--name=r", str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": url},
        timeout=120,
    )
    assert completed.returncode != 0
    assert f"{path}: collection 'any' does not exist" in completed.stderr
