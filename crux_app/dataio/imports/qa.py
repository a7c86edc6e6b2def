"""Import short-answer QA records: one JSON object per line.

``{"id", "question", "answers": [...], "contexts": [{"id", "text", "gold": optional bool}]}``.
Each record becomes a topic (request = question, gold answers) with one sub-question at
position 0 (the question itself); contexts become passages (an id seen with another text is
an error), gold contexts become passage qrels of grade 1 with source ``qa_gold``, and since no
run is given, the contexts in file order become the retrieved list: a run (``contexts`` by
default) with rank = position + 1 and score = 1 / rank. Re-importing replaces that run's
entries for the file's topics and their ``qa_gold`` qrels.
"""

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from crux_app.models import Collection, PassageQrel, Topic
from crux_app.vocabulary import QA_GOLD_SOURCE

from ..collection_store import CollectionStore, RunLine
from ..errors import ImportFailure, checked_file
from ..label_store import upsert_passage_qrels
from ..readers import Record, read_jsonl
from ..results import ImportResult

GOLD_SOURCE = QA_GOLD_SOURCE  # the shared vocabulary's name, kept for older imports
DEFAULT_RUN = "contexts"


@dataclass
class _QARecord:
    record: Record
    qid: str
    question: str
    answers: list[str]
    contexts: list[tuple[str, str, bool]]  # (passage id, text, gold)


def _parse(record: Record) -> _QARecord:
    qid = str(record.field("id", str, int))
    question = record.field("question", str)
    answers = record.field("answers", list)
    for i, answer in enumerate(answers):
        if not isinstance(answer, str):
            raise record.fail(f"answers[{i}] must be a string")
    contexts = []
    seen: set[str] = set()
    for i, context in enumerate(record.field("contexts", list)):
        if not isinstance(context, dict):
            raise record.fail(f"contexts[{i}] must be an object")
        inner = Record(record.file, record.line, context)
        pid = str(_prefixed(inner, f"contexts[{i}]", "id", str, int))
        text = _prefixed(inner, f"contexts[{i}]", "text", str)
        gold = _prefixed(inner, f"contexts[{i}]", "gold", bool, optional=True, default=False)
        if pid in seen:
            raise record.fail(f"contexts[{i}]: passage '{pid}' appears twice in this record")
        seen.add(pid)
        contexts.append((pid, text, gold))
    return _QARecord(record, qid, question, answers, contexts)


def _prefixed(record: Record, where: str, key: str, *types: type, **options):
    """``record.field`` whose messages say which context of the line is at fault."""
    try:
        return record.field(key, *types, **options)
    except ImportFailure as failure:
        raise record.fail(f"{where}: {failure.reason}") from None


def import_qa(
    collection: str,
    source: Path,
    *,
    run_name: str = DEFAULT_RUN,
    label: str | None = None,
    progress: bool = False,
) -> ImportResult:
    """Import the QA JSONL file ``source`` into ``collection`` (created as a QA collection)."""
    source, label = checked_file(source, label)
    result = ImportResult(format="qa", collection=collection)
    records: list[_QARecord] = []
    first_line: dict[str, int] = {}
    texts: dict[str, tuple[str, int]] = {}
    for record in read_jsonl(source, label, progress):
        parsed = _parse(record)
        if parsed.qid in first_line:
            first = first_line[parsed.qid]
            raise record.fail(f"duplicate id '{parsed.qid}', first at line {first}")
        first_line[parsed.qid] = record.line
        for pid, text, _ in parsed.contexts:
            if pid in texts and texts[pid][0] != text:
                raise record.fail(f"passage '{pid}' has another text than at line {texts[pid][1]}")
            texts.setdefault(pid, (text, record.line))
        records.append(parsed)
    if not records:
        raise ImportFailure(label, None, "no QA records: the file holds no JSON lines")
    with transaction.atomic():
        store = CollectionStore.open(collection, kind=Collection.Kind.QA)
        result.collection_id, result.collection_created = store.collection.pk, store.created
        _check_stored_texts(store, texts, label)
        _store(records, texts, store, run_name or DEFAULT_RUN, result)
    return result


def _check_stored_texts(store: CollectionStore, texts: dict, label: str) -> None:
    stored = store.collection.passages.filter(external_id__in=list(texts), has_text=True)
    for pid, text in stored.values_list("external_id", "text"):
        if text != texts[pid][0]:
            raise ImportFailure(
                label,
                texts[pid][1],
                f"passage '{pid}' is already in collection '{store.collection.name}' "
                "with another text",
            )


def _store(records: list[_QARecord], texts: dict, store, run_name: str, result) -> None:
    topics = [Topic(external_id=r.qid, request=r.question, gold_answers=r.answers) for r in records]
    store.upsert_topics(topics, update_fields=["request", "gold_answers"])
    result.add("topics", len(topics))
    counts = store.subquestion_counts(store.topic_ids[r.qid] for r in records)
    for r in records:
        if counts.get(store.topic_ids[r.qid], 1) != 1:
            raise r.record.fail(f"topic '{r.qid}' already has several sub-questions")
    questions = {store.topic_ids[r.qid]: [r.question] for r in records}
    result.add("sub-questions", store.upsert_subquestions(questions))
    result.add("passages", store.upsert_passages((pid, text) for pid, (text, _) in texts.items()))

    topic_ids = [store.topic_ids[r.qid] for r in records]
    PassageQrel.objects.filter(topic_id__in=topic_ids, source=GOLD_SOURCE).delete()
    qrels = [
        (store.topic_ids[r.qid], store.passage_ids[pid], 1, GOLD_SOURCE)
        for r in records
        for pid, _, gold in r.contexts
        if gold
    ]
    upsert_passage_qrels(qrels)
    result.add("gold qrels", len(qrels))

    lines = [
        RunLine(store.topic_ids[r.qid], store.passage_ids[pid], i + 1, 1 / (i + 1), i)
        for r in records
        for i, (pid, _, _) in enumerate(r.contexts)
    ]
    store.replace_run(run_name, lines, {"source": "qa contexts"}, scope_topics=topic_ids)
    result.add("runs")
    result.add("run entries", len(lines))
