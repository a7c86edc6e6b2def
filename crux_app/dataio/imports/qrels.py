"""Import a TREC qrels file (``qid 0 docid grade``) as one judge's passage relevance labels.

NIST's assessors and an LLM (UMBRELA, say) are judges alike: the file's grades become
``PassageQrel`` rows whose source is the judge's name, and the judge (kind human or llm, model
id for an LLM) is created when new; ``qrels_judge`` explains the choice. Every topic must
already be in the collection (``import_topics``), and every passage too unless
``add_missing_passages`` is set, which creates the missing ones without text. The second column
(TREC's iteration) is ignored; grades are integers and may be negative (TREC's junk grades).
Re-importing replaces the judge's qrels of the topics the file names and keeps its other
topics' qrels, so a judge's labels can arrive topic batch by topic batch.
"""

from pathlib import Path

from django.db import transaction

from crux_app.models import PassageQrel

from ..collection_store import CollectionStore
from ..errors import ImportFailure, checked_file
from ..pg_copy import insert_rows
from ..qrels_judge import check_source_is_the_judges, qrels_judge, qrels_source
from ..readers import read_columns
from ..results import ImportResult
from .run import create_missing_passages

QRELS_LAYOUT = "qid 0 docid grade"
MIN_GRADE, MAX_GRADE = -(2**15), 2**15 - 1  # PassageQrel.grade is a SmallIntegerField


def parse_qrels(
    path: Path, label: str, store: CollectionStore, add_missing: bool, progress: bool
) -> tuple[list[tuple[int, int, int]], int]:
    """(topic pk, passage pk, grade) per line, and how many text-less passages were made."""
    rows = list(read_columns(path, label, 4, QRELS_LAYOUT, progress))
    if not rows:
        raise ImportFailure(label, None, "no qrels: the file holds no lines")
    created = create_missing_passages(rows, 2, store) if add_missing else 0
    name = store.collection.name
    first_line: dict[tuple[str, str], int] = {}
    qrels = []
    for row in rows:
        qid, _, pid, _ = row.fields
        grade = row.int(3, "grade")
        if not MIN_GRADE <= grade <= MAX_GRADE:
            raise row.fail(f"grade must lie in {MIN_GRADE}..{MAX_GRADE}, got {grade}")
        topic_id = store.topic_ids.get(qid)
        if topic_id is None:
            raise row.fail(f"unknown topic '{qid}' in collection '{name}'")
        passage_id = store.passage_ids.get(pid)
        if passage_id is None:
            raise row.fail(f"unknown passage '{pid}' in collection '{name}'")
        if (qid, pid) in first_line:
            raise row.fail(
                f"duplicate qrel for ({qid}, {pid}), first at line {first_line[qid, pid]}"
            )
        first_line[qid, pid] = row.line
        qrels.append((topic_id, passage_id, grade))
    return qrels, created


def import_qrels(
    collection: str,
    source: Path,
    *,
    judge: str,
    judge_kind: str,
    model_id: str = "",
    prompt_version: str = "",
    add_missing_passages: bool = False,
    label: str | None = None,
    progress: bool = False,
) -> ImportResult:
    """Import the qrels file ``source`` into ``collection`` (which must exist) as the labels of
    the judge ``judge`` (created when new, of kind ``judge_kind``)."""
    source, label = checked_file(source, label)
    result = ImportResult(format="qrels", collection=collection)
    with transaction.atomic():
        store = CollectionStore.required(collection, label)
        result.collection_id = store.collection.pk
        # Job parameters may carry None for the optional ones.
        stored_judge, created = qrels_judge(
            judge or "", judge_kind or "", model_id or "", prompt_version or "", label
        )
        if created:
            check_source_is_the_judges(store.collection, stored_judge, label)
        qrels, passages_created = parse_qrels(
            source, label, store, bool(add_missing_passages), progress
        )
        name = qrels_source(stored_judge.name)
        topic_ids = {topic_id for topic_id, _, _ in qrels}
        PassageQrel.objects.filter(topic_id__in=topic_ids, source=name).delete()
        insert_rows(
            PassageQrel,
            ["topic_id", "passage_id", "grade", "source"],
            ((topic_id, passage_id, grade, name) for topic_id, passage_id, grade in qrels),
        )
        result.add("judges created", int(created))
        result.add("qrels", len(qrels))
        result.add("topics", len(topic_ids))
        if add_missing_passages:
            result.add("passages without text", passages_created)
    return result
