"""Import TREC topics: ``qid<TAB>text`` lines, or JSONL ``{"id", "text"}`` objects.

The collection is created when it does not exist yet. Each topic's text becomes its request;
re-importing updates the texts of the file's topics and keeps the collection's other topics.
JSONL also accepts BEIR's ``_id`` for the id.
"""

from pathlib import Path

from django.db import transaction

from crux_app.models import Topic

from ..collection_store import CollectionStore
from ..errors import ImportFailure, checked_file
from ..id_text import IdTextLayout, read_id_texts
from ..results import ImportResult

TOPICS = IdTextLayout(
    noun="topic",
    tsv_layout="qid<TAB>text",
    id_keys=("id", "_id"),
    text_keys=("text",),
    max_id_length=Topic._meta.get_field("external_id").max_length,
)


def import_topics(
    collection: str, source: Path, *, label: str | None = None, progress: bool = False
) -> ImportResult:
    """Import the topics file ``source`` into ``collection`` (created when new)."""
    source, label = checked_file(source, label)
    topics = [
        Topic(external_id=pair.id, request=pair.text)
        for pair in read_id_texts(source, label, TOPICS, progress)
    ]
    if not topics:
        raise ImportFailure(label, None, "no topics: the file holds no lines")
    result = ImportResult(format="topics", collection=collection)
    with transaction.atomic():
        store = CollectionStore.open(collection)
        result.collection_id, result.collection_created = store.collection.pk, store.created
        store.upsert_topics(topics, update_fields=["request"])
        result.add("topics", len(topics))
    return result
