"""import_crux_labeling reads TREC qrels files (``*.qrels``) at the folder's top as passage
qrels named by the file stem; a bad line names FILE:LINE and nothing is written."""

import pytest

from crux_app.dataio.imports.crux_labeling import import_crux_labeling
from crux_app.models import PassageQrel

from .importer_inputs import copy_platform, row_counts, write_lines
from .importer_inputs import labeling_import_fails as _fails

pytestmark = pytest.mark.django_db

GOOD = [
    "duc04-testb-3 0 duc04-testb-3:3#10 3",
    "duc04-testb-3 0 duc04-testb-3:9#27 2",
    "duc04-testb-3 Q0 duc04-testb-3:0#0 0",
    "duc04-testb-7 0 duc04-testb-7:14#43 1",
]


def stored(source: str = "expert") -> dict[tuple[str, str], int]:
    rows = PassageQrel.objects.filter(source=source).values_list(
        "topic__external_id", "passage__external_id", "grade"
    )
    return {(topic, passage): grade for topic, passage, grade in rows}


def with_qrels(tmp_path, sample, lines: list[str], name: str = "expert.qrels"):
    folder = copy_platform(sample, tmp_path / "p")
    write_lines(folder / name, lines)
    return folder


def test_a_qrels_file_becomes_passage_qrels_named_by_its_stem(tmp_path, crux_sample_dir):
    folder = with_qrels(tmp_path, crux_sample_dir, GOOD)
    result = import_crux_labeling("duc", folder)

    assert result.counts["passage qrels"] == 4
    assert stored() == {
        ("duc04-testb-3", "duc04-testb-3:3#10"): 3,
        ("duc04-testb-3", "duc04-testb-3:9#27"): 2,
        ("duc04-testb-3", "duc04-testb-3:0#0"): 0,
        ("duc04-testb-7", "duc04-testb-7:14#43"): 1,
    }
    assert set(PassageQrel.objects.values_list("source", flat=True)) == {"expert"}


def test_a_reimport_keeps_exactly_the_files_lines(tmp_path, crux_sample_dir):
    folder = with_qrels(tmp_path, crux_sample_dir, GOOD)
    import_crux_labeling("duc", folder)
    before = row_counts()
    import_crux_labeling("duc", folder)
    assert row_counts() == before

    # A changed grade is updated and a dropped line's qrel goes, within the file's topics;
    # a topic the file no longer names keeps its qrels, and other sources are kept.
    write_lines(folder / "expert.qrels", ["duc04-testb-3 0 duc04-testb-3:3#10 2", GOOD[1], GOOD[3]])
    write_lines(folder / "crowd.qrels", ["duc04-testb-7 0 duc04-testb-7:14#43 3"])
    import_crux_labeling("duc", folder)
    assert stored() == {
        ("duc04-testb-3", "duc04-testb-3:3#10"): 2,
        ("duc04-testb-3", "duc04-testb-3:9#27"): 2,
        ("duc04-testb-7", "duc04-testb-7:14#43"): 1,
    }
    assert stored("crowd") == {("duc04-testb-7", "duc04-testb-7:14#43"): 3}


def test_dot_files_are_not_qrels(tmp_path, crux_sample_dir):
    folder = with_qrels(tmp_path, crux_sample_dir, ["not a qrels line"], name="._expert.qrels")
    import_crux_labeling("duc", folder)
    assert not PassageQrel.objects.exists()


def test_an_empty_qrels_file_is_refused(tmp_path, crux_sample_dir):
    folder = with_qrels(tmp_path, crux_sample_dir, [])
    _fails(folder, f"{folder}/expert.qrels: no qrels: the file holds no lines")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            "duc04-testb-3 0 duc04-testb-3:3#10",
            "expected 4 whitespace-separated fields (qid 0 docid grade), got 3",
        ),
        ("duc04-testb-3 0 duc04-testb-3:3#10 high", "grade must be an integer, got 'high'"),
        (
            "duc04-testb-99 0 duc04-testb-3:3#10 3",
            "unknown topic 'duc04-testb-99' in collection 'duc'",
        ),
        (
            "duc04-testb-3 0 duc04-testb-3:99#99 3",
            "unknown passage 'duc04-testb-3:99#99' in collection 'duc'",
        ),
        (
            "duc04-testb-3 0 duc04-testb-3:9#27 1",
            "duplicate qrel for (duc04-testb-3, duc04-testb-3:9#27), first at line 2",
        ),
    ],
)
def test_a_bad_line_names_file_and_line_and_writes_nothing(tmp_path, crux_sample_dir, line, reason):
    folder = with_qrels(tmp_path, crux_sample_dir, [*GOOD[:3], line])
    _fails(folder, f"{folder}/expert.qrels:4: {reason}")


def test_a_bad_line_leaves_a_loaded_collection_as_it_was(tmp_path, crux_sample_dir):
    folder = with_qrels(tmp_path, crux_sample_dir, GOOD)
    import_crux_labeling("duc", folder)
    first = stored()
    # The good first line would change a grade; the bad third line must undo that too.
    write_lines(
        folder / "expert.qrels",
        ["duc04-testb-3 0 duc04-testb-3:3#10 1", GOOD[1], "duc04-testb-3 0 x 3"],
    )
    _fails(
        folder,
        f"{folder}/expert.qrels:3: unknown passage 'x' in collection 'duc'",
    )
    assert stored() == first
