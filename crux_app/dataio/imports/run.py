"""Import a TREC run file (``qid Q0 pid rank score tag``) as a named Run of a collection.

Re-importing a run under the same name replaces its entries. Standalone, every topic must
already be in the collection, and every passage too unless ``add_missing_passages`` is set: a
TREC run lists 1,000 passages per topic, most never judged nor shipped with text, so those are
created without text (``import_passages`` gives them their text later). The labeling-platform
importer reuses the parser and always keeps unknown passages as text-less ones, as the
platform's release requires.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from crux_app.models import Passage

from ..collection_store import CollectionStore, RunLine
from ..errors import ImportFailure, checked_file
from ..readers import Row, read_columns
from ..results import ImportResult

RUN_LAYOUT = "qid Q0 pid rank score tag"
MAX_RANK = 2**31 - 1  # RunEntry.rank is a PositiveIntegerField
MAX_PASSAGE_ID = Passage._meta.get_field("external_id").max_length


@dataclass
class ParsedRun:
    lines: list[RunLine]
    tags: list[str]
    passages_created: int  # text-less passages made for unknown ids (create mode only)

    @property
    def metadata(self) -> dict:
        return {"tag": self.tags[0]} if len(self.tags) == 1 else {"tags": self.tags}


def create_missing_passages(rows: Sequence[Row], column: int, store: CollectionStore) -> int:
    """Create text-less passages for the ids in ``column`` of ``rows`` that the collection
    lacks (an id too long to store is refused at its line); returns how many were made."""
    for row in rows:
        if len(row.fields[column]) > MAX_PASSAGE_ID:
            raise row.fail(
                f"passage id is {len(row.fields[column])} characters long, "
                f"at most {MAX_PASSAGE_ID} are stored"
            )
    return store.ensure_passages(row.fields[column] for row in rows)


def parse_run(
    path: Path,
    label: str,
    store: CollectionStore,
    create_unknown_passages: bool = False,
    progress: bool = False,
) -> ParsedRun:
    """Read and check a run file against the collection's topics and passages."""
    rows = list(read_columns(path, label, 6, RUN_LAYOUT, progress))
    created = 0
    if create_unknown_passages:
        created = create_missing_passages(rows, 2, store)
    seen: dict[tuple[str, str], int] = {}
    tags: dict[str, None] = {}
    lines = []
    for order, row in enumerate(rows):
        qid, _, pid, _, _, tag = row.fields
        rank = row.int(3, "rank")
        score = row.float(4, "score")
        if not 0 <= rank <= MAX_RANK:
            raise row.fail(f"rank must lie in 0..{MAX_RANK}, got {rank}")
        topic_id = store.topic_ids.get(qid)
        if topic_id is None:
            raise row.fail(f"unknown topic '{qid}' in collection '{store.collection.name}'")
        passage_id = store.passage_ids.get(pid)
        if passage_id is None:
            raise row.fail(f"unknown passage '{pid}' in collection '{store.collection.name}'")
        if (qid, pid) in seen:
            raise row.fail(f"duplicate entry ({qid}, {pid}), first at line {seen[qid, pid]}")
        seen[qid, pid] = row.line
        tags[tag] = None
        lines.append(RunLine(topic_id, passage_id, rank, score, order))
    return ParsedRun(lines, list(tags), created)


def import_run(
    collection: str,
    source: Path,
    *,
    run_name: str,
    add_missing_passages: bool = False,
    label: str | None = None,
    progress: bool = False,
) -> ImportResult:
    """Import the run file ``source`` into ``collection`` (which must exist) as ``run_name``;
    with ``add_missing_passages``, passages the collection lacks are created without text."""
    source, label = checked_file(source, label)
    result = ImportResult(format="run", collection=collection)
    if not run_name.strip():
        raise ImportFailure(label, None, "the run needs a name")
    with transaction.atomic():
        store = CollectionStore.existing(collection)
        if store is None:
            raise ImportFailure(label, None, f"collection '{collection}' does not exist")
        result.collection_id = store.collection.pk
        parsed = parse_run(source, label, store, bool(add_missing_passages), progress)
        store.replace_run(run_name, parsed.lines, parsed.metadata)
        result.add("runs")
        result.add("run entries", len(parsed.lines))
        result.add("topics", len({line.topic_id for line in parsed.lines}))
        if add_missing_passages:
            result.add("passages without text", parsed.passages_created)
    return result
