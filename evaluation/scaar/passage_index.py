"""The BM25 index of a collection's passages that SCAAR's queries are run against."""

from __future__ import annotations

from crux_app.models import Collection, Passage
from evaluation.scaar.method.bm25 import Bm25Index


def collection_index(collection: Collection) -> Bm25Index:
    """BM25 over every passage of the collection that has text; keys are passage pks."""
    rows = (
        Passage.objects.filter(collection=collection, has_text=True)
        .exclude(text="")
        .order_by("pk")
        .values_list("pk", "text")
    )
    keys, texts = [], []
    for pk, text in rows:
        keys.append(str(pk))
        texts.append(text)
    return Bm25Index(keys, texts)
