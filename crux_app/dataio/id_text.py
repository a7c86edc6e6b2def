"""Files of (id, text) pairs: a TSV (``id<TAB>text``) or JSONL (one object per line).

TREC topics and passage corpora come in both shapes. Which one a file is, is read from its
first non-blank character: ``{`` is JSONL, anything else TSV. Every pair knows its line, an id
seen twice is refused at its second line, and an id that holds whitespace (it could never be
matched in a whitespace-separated run or qrels file) or is longer than the column holding it,
and a blank text, are refused where they stand. TSV texts are stripped; JSON texts are kept as
given.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import ImportFailure
from .readers import read_jsonl, read_tsv_pairs


@dataclass(frozen=True)
class IdTextLayout:
    """How one kind of (id, text) file is spelled and checked."""

    noun: str  # "topic", "passage": names the id and the text in messages
    tsv_layout: str  # e.g. "qid<TAB>text"
    id_keys: tuple[str, ...]  # accepted JSONL spellings of the id, preferred first
    text_keys: tuple[str, ...]  # accepted JSONL spellings of the text, preferred first
    max_id_length: int


@dataclass(frozen=True)
class IdText:
    file: str
    line: int
    id: str
    text: str

    def fail(self, reason: str) -> ImportFailure:
        return ImportFailure(self.file, self.line, reason)


def is_jsonl(path: Path) -> bool:
    """Does the file's first non-blank character open a JSON object?"""
    with path.open("rb") as handle:
        for raw in handle:
            stripped = raw.lstrip(b"\xef\xbb\xbf").strip()
            if stripped:
                return stripped.startswith(b"{")
    return False


def _pairs(path: Path, label: str, layout: IdTextLayout, progress: bool) -> Iterator[IdText]:
    if is_jsonl(path):
        for record in read_jsonl(path, label, progress):
            pid = record.first_field(layout.id_keys, str, int)
            text = record.first_field(layout.text_keys, str)
            yield IdText(label, record.line, str(pid).strip(), text)
    else:
        for row in read_tsv_pairs(path, label, layout.tsv_layout, progress):
            yield IdText(label, row.line, row.fields[0], row.fields[1])


def read_id_texts(
    path: Path, label: str, layout: IdTextLayout, progress: bool = False
) -> Iterator[IdText]:
    """The file's (id, text) pairs in file order, checked as the module docstring says."""
    first_line: dict[str, int] = {}
    for pair in _pairs(path, label, layout, progress):
        if not pair.id:
            raise pair.fail(f"empty {layout.noun} id")
        if len(pair.id.split()) != 1:
            raise pair.fail(f"{layout.noun} id {pair.id!r} holds whitespace")
        if len(pair.id) > layout.max_id_length:
            raise pair.fail(
                f"{layout.noun} id is {len(pair.id)} characters long, "
                f"at most {layout.max_id_length} are stored"
            )
        if not pair.text.strip():
            raise pair.fail(f"empty text for {layout.noun} '{pair.id}'")
        if pair.id in first_line:
            raise pair.fail(
                f"duplicate {layout.noun} '{pair.id}', first at line {first_line[pair.id]}"
            )
        first_line[pair.id] = pair.line
        yield pair
