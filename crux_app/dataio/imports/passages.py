"""Import passage texts: ``pid<TAB>text`` lines, or JSONL ``{"id", "contents"}`` objects.

The text of a TREC collection often comes after its runs and qrels, which create the passages
they name without text (``--add-missing-passages``). This import gives those passages their
text and creates the ones the collection lacks. A passage that already has a text keeps it: the
same text again is skipped (re-importing changes nothing), another text is refused, since the
collection's labels were given to the stored one. JSONL accepts ``id``, ``_id`` or ``docid``
for the id and ``contents``, ``text`` or ``segment`` for the text. The rows stream into the
database (``passage_merge``), so a corpus of millions of passages never sits in memory.
"""

from pathlib import Path

from django.db import transaction

from crux_app.models import Passage

from ..collection_store import CollectionStore
from ..errors import ImportFailure, checked_file
from ..id_text import IdTextLayout, read_id_texts
from ..passage_merge import PassageMerge
from ..results import ImportResult

PASSAGES = IdTextLayout(
    noun="passage",
    tsv_layout="pid<TAB>text",
    id_keys=("id", "_id", "docid"),
    text_keys=("contents", "text", "segment"),
    max_id_length=Passage._meta.get_field("external_id").max_length,
)


def import_passages(
    collection: str, source: Path, *, label: str | None = None, progress: bool = False
) -> ImportResult:
    """Import the passages file ``source`` into ``collection`` (which must exist)."""
    source, label = checked_file(source, label)
    result = ImportResult(format="passages", collection=collection)
    with transaction.atomic():
        store = CollectionStore.required(collection, label)
        result.collection_id = store.collection.pk
        merge = PassageMerge(store.collection.pk)
        pairs = read_id_texts(source, label, PASSAGES, progress)
        staged = merge.stage((pair.line, pair.id, pair.text) for pair in pairs)
        if not staged:
            raise ImportFailure(label, None, "no passages: the file holds no lines")
        conflict = merge.first_conflict()
        if conflict is not None:
            line, pid = conflict
            raise ImportFailure(
                label,
                line,
                f"passage '{pid}' is already in collection '{collection}' with another text",
            )
        counts = merge.apply(staged)
        result.add("passages created", counts.created)
        result.add("passage texts filled", counts.filled)
        result.add("passages unchanged", counts.unchanged)
    return result
