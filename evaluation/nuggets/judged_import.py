"""The import of a nugget file of one judge's labels (assignments, nugget-passage ratings), as
the catalog calls importers: the whole file read first (bad lines are ``FILE:LINE`` errors),
then in one transaction the judge matched or made from the judge fields qrels share
(``qrels_judge``) and the labels stored by the format's own function."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from django.db import transaction

from crux_app.dataio.collection_store import CollectionStore
from crux_app.dataio.errors import checked_file
from crux_app.dataio.qrels_judge import qrels_judge
from crux_app.dataio.results import ImportResult
from crux_app.models import Judge

Line = TypeVar("Line")
# (path, label, progress) -> the file's records
Reader = Callable[[Path, str, bool], list[Line]]
# (store, judge, records, label, result): writes the labels, counts them into result
Writer = Callable[[CollectionStore, Judge, list[Line], str, ImportResult], None]


class JudgedImport(Generic[Line]):
    """An importer of one judge's labels: ``read`` parses the file, ``write`` stores it."""

    def __init__(self, format_name: str, read: Reader, write: Writer) -> None:
        self.format_name, self.read, self.write = format_name, read, write

    def __call__(
        self,
        collection: str,
        source: Path,
        *,
        judge: str,
        judge_kind: str,
        model_id: str = "",
        prompt_version: str = "",
        label: str | None = None,
        progress: bool = False,
    ) -> ImportResult:
        source, label = checked_file(source, label)
        records = self.read(source, label, progress)
        result = ImportResult(format=self.format_name, collection=collection)
        with transaction.atomic():
            store = CollectionStore.required(collection, label)
            result.collection_id = store.collection.pk
            judge_row, created = qrels_judge(judge, judge_kind, model_id, prompt_version, label)
            result.add("judges created", int(created))
            self.write(store, judge_row, records, label, result)
        return result
