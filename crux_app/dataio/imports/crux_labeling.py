"""Import a folder in the CRUX labeling platform's layout (DylanJoo/crux-labeling).

- ``documents/<passage id>``: ``{"id", "contents"}`` per file -> passages with text.
- ``*.jsonl`` at the top: one generated report per line (``qid, topic, questions, type, k,
  docids, report, response``). ``oracle.jsonl`` is canonical: its qids name the outputs the
  labels refer to, and a qid ``{system}_{topic}`` names a system's report on that topic (the
  system is known from the other files' names, or from the topic's own unprefixed line);
  unprefixed qids are the ``oracle`` system. In any other file the system is the file stem and
  qids are topics. A line equal to the stored output of its system and topic (same response
  and context passages) is that output; a different one is kept as a distinct output called
  ``{file name}:{qid}`` and reported, never overwriting. ``k`` may be an int or a string,
  ``docids`` a list or a Python-list string, ``questions`` a list or a string holding one.
- ``*.run``: TREC runs named by the file stem; context and run passages that have no document
  file are kept as text-less passages and counted.
- ``*.qrels``: TREC passage qrels (``qid 0 pid grade``, read by ``import_qrels.parse_qrels``)
  stored with the file stem as their source: ``expert.qrels`` -> source ``expert``, the name of
  the judge whose labels they are, as ``qrels_judge`` stores a judge's qrels. Their topics and
  passages must be in the folder (documents, report contexts or runs). A re-import replaces
  the source's qrels of the topics the file names.
- ``labels/{judge}_qrels.jsonl`` and ``labels/{judge}_qlabels.jsonl``: see ``platform_labels``.
"""

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from crux_app.client_input import InputRefused, json_int
from crux_app.models import GeneratedOutput, PassageQrel, Topic

from ..collection_store import BATCH_SIZE, CollectionStore
from ..errors import ImportFailure
from ..label_store import upsert_passage_qrels
from ..platform_labels import import_labels
from ..qrels_judge import MAX_SOURCE_LENGTH, qrels_source
from ..readers import Record, SourceDir, json_problem, read_json_document, read_jsonl
from ..results import ImportResult
from .qrels import parse_qrels
from .run import parse_run

ORACLE_FILE = "oracle.jsonl"
ORACLE_SYSTEM = "oracle"


@dataclass
class _ReportLine:
    record: Record
    file_name: str
    qid: str
    system: str
    topic: str
    request: str
    questions: list[str | None]
    context_type: str
    k: int
    docids: list[str]
    reference: str
    response: str


def import_crux_labeling(
    collection: str, source: Path, *, label: str | None = None, progress: bool = False
) -> ImportResult:
    """Import the platform folder ``source`` into ``collection`` (created when new)."""
    source = Path(source)
    if not source.is_dir():
        raise ImportFailure(str(source), None, "not a folder")
    src = SourceDir(source, str(source) if label is None else label)
    result = ImportResult(format="crux-labeling", collection=collection)
    report_files = sorted(source.glob("*.jsonl"), key=lambda p: (p.name != ORACLE_FILE, p.name))
    run_files = sorted(source.glob("*.run"))
    # Dot files (._expert.qrels from macOS archives and the like) are not qrels.
    qrels_files = sorted(
        p for p in source.glob("*.qrels") if p.is_file() and not p.name.startswith(".")
    )
    if not report_files and not run_files:
        raise ImportFailure(src.label(source), None, "no *.jsonl report files or *.run files")
    with transaction.atomic():
        store = CollectionStore.open(collection)
        result.collection_id, result.collection_created = store.collection.pk, store.created
        _store_documents(src, store, result, progress)
        reports = _read_reports(src, report_files, run_files)
        _store_topics(reports, store, result)
        store.require_topics(src.label(source))
        _store_outputs(reports, store, result)
        for path in run_files:
            parsed = parse_run(path, src.label(path), store, create_unknown_passages=True)
            store.replace_run(path.stem, parsed.lines, parsed.metadata)
            result.add("runs")
            result.add("run entries", len(parsed.lines))
            result.add("passages without text", parsed.passages_created)
        for path in qrels_files:
            _store_qrels(path, src.label(path), store, result, progress)
        import_labels(src, store, result)
    return result


def _store_documents(src: SourceDir, store: CollectionStore, result, progress) -> None:
    folder = src.root / "documents"
    paths = sorted(folder.iterdir()) if folder.is_dir() else []
    # Dot files (.DS_Store and the like) are not documents.
    paths = [p for p in paths if p.is_file() and not p.name.startswith(".")]
    batch: list[tuple[str, str]] = []
    for path in paths:
        record = read_json_document(path, src.label(path))
        pid = str(record.field("id", str, int))
        if pid != path.name:
            raise record.fail(f"id '{pid}' differs from the file name")
        batch.append((pid, record.field("contents", str)))
        if len(batch) >= BATCH_SIZE:
            result.add("passages", store.upsert_passages(batch))
            batch = []
    result.add("passages", store.upsert_passages(batch))


def _store_qrels(path: Path, label: str, store: CollectionStore, result, progress) -> None:
    """The qrels file as the passage qrels of the source named by its stem."""
    source = qrels_source(path.stem)
    if len(source) > MAX_SOURCE_LENGTH:
        raise ImportFailure(
            label, None, f"the file name makes a source name over {MAX_SOURCE_LENGTH} characters"
        )
    qrels, _ = parse_qrels(path, label, store, add_missing=False, progress=progress)
    rows = [(topic_id, passage_id, grade, source) for topic_id, passage_id, grade in qrels]
    kept = {(topic_id, passage_id) for topic_id, passage_id, _ in qrels}
    stored = PassageQrel.objects.filter(topic_id__in={t for t, _ in kept}, source=source)
    gone = [
        pk
        for pk, *key in stored.values_list("pk", "topic_id", "passage_id")
        if tuple(key) not in kept
    ]
    PassageQrel.objects.filter(pk__in=gone).delete()
    upsert_passage_qrels(rows)
    result.add("passage qrels", len(rows))


# ---- Report files ----------------------------------------------------------------------


def _literal_list(record: Record, key: str) -> list:
    """A field given as a JSON list or as a string holding a JSON/Python list."""
    value = record.field(key, list, str)
    if isinstance(value, str):
        try:
            value = json.loads(value, parse_int=json_int)
        except InputRefused as error:
            raise record.fail(f"field '{key}' holds {error.message}") from None
        except (json.JSONDecodeError, RecursionError):
            try:
                value = ast.literal_eval(value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise record.fail(f"field '{key}' is a string that holds no list") from None
        if not isinstance(value, list):
            raise record.fail(f"field '{key}' is a string that holds no list")
        # The line itself was checked as read; the list inside the string was not.
        reason = json_problem(value)
        if reason is not None:
            raise record.fail(f"field '{key}' {reason}")
    return value


def _split_qid(qid: str, systems: list[str], qids: set[str]) -> tuple[str, str]:
    """(system, topic) of an oracle.jsonl qid."""
    for system in systems:
        if qid.startswith(f"{system}_") and len(qid) > len(system) + 1:
            return system, qid[len(system) + 1 :]
    for topic in qids:
        if topic != qid and qid.endswith(f"_{topic}"):
            return qid[: -len(topic) - 1], topic
    return ORACLE_SYSTEM, qid


def _parse_report(record: Record, file_name: str, system: str, topic: str) -> _ReportLine:
    questions = _literal_list(record, "questions")
    for i, question in enumerate(questions):
        if question is not None and not isinstance(question, str):
            raise record.fail(f"questions[{i}] must be a string or null")
    docids = _literal_list(record, "docids")
    for i, docid in enumerate(docids):
        if not isinstance(docid, str):
            raise record.fail(f"docids[{i}] must be a string")
    k: Any = record.field("k", int, str, optional=True, default=len(docids))
    try:
        k = int(k)
    except ValueError:
        raise record.fail(f"field 'k' must be a whole number, got {k!r}") from None
    context_type = record.field("type", str, list, optional=True, default="")
    if isinstance(context_type, list):  # an older platform version wrote [type, k]
        context_type = str(context_type[0]) if context_type else ""
    return _ReportLine(
        record=record,
        file_name=file_name,
        qid=record.data["qid"],
        system=system,
        topic=topic,
        request=record.field("topic", str),
        questions=questions,
        context_type=context_type,
        k=k,
        docids=docids,
        reference=record.field("report", str),
        response=record.field("response", str),
    )


def _read_reports(src: SourceDir, report_files: list[Path], run_files: list[Path]) -> list:
    # Longest first, so that "dr_rankfirst" wins over a hypothetical "dr".
    stems = {p.stem for p in [*report_files, *run_files]} - {Path(ORACLE_FILE).stem}
    systems = sorted(stems, key=len, reverse=True)
    reports: list[_ReportLine] = []
    for path in report_files:
        records = list(read_jsonl(path, src.label(path)))
        qids = {str(r.field("qid", str)) for r in records}
        for record in records:
            qid = record.field("qid", str)
            if path.name == ORACLE_FILE:
                system, topic = _split_qid(qid, systems, qids)
            else:
                system, topic = path.stem, qid.removeprefix(f"{path.stem}_")
            reports.append(_parse_report(record, path.name, system, topic))
    return reports


def _store_topics(reports: list[_ReportLine], store: CollectionStore, result) -> None:
    first: dict[str, _ReportLine] = {}
    for report in reports:
        seen = first.setdefault(report.topic, report)
        if report.questions != seen.questions:
            where = f"{seen.record.file}:{seen.record.line}"
            raise report.record.fail(f"questions of topic '{report.topic}' differ from {where}")
        if (report.request, report.reference) != (seen.request, seen.reference):
            result.warn(
                f"{report.record.file}:{report.record.line}: topic or report text of "
                f"'{report.topic}' differs from {seen.record.file}:{seen.record.line}; "
                "kept the first"
            )
    topics = [
        Topic(external_id=topic, request=r.request, reference_report=r.reference)
        for topic, r in first.items()
    ]
    store.upsert_topics(topics, update_fields=["request", "reference_report"])
    counts = store.subquestion_counts(store.topic_ids[t] for t in first)
    for topic, report in first.items():
        stored = counts.get(store.topic_ids[topic])
        if stored and stored != len(report.questions):
            raise report.record.fail(
                f"topic '{topic}' already has {stored} sub-questions in this collection; "
                f"this line gives {len(report.questions)}"
            )
    written = store.upsert_subquestions({store.topic_ids[t]: r.questions for t, r in first.items()})
    result.add("topics", len(topics))
    result.add("sub-questions", written)


def _store_outputs(reports: list[_ReportLine], store: CollectionStore, result) -> None:
    canonical = {f"{r.system}_{r.topic}" for r in reports if r.file_name != ORACLE_FILE}
    stored = store.stored_outputs(canonical)
    kept: dict[str, _ReportLine] = {}
    outputs: list[GeneratedOutput] = []
    contexts: dict[str, list[str]] = {}
    for report in reports:
        if report.file_name == ORACLE_FILE:
            external_id = report.qid
        else:
            external_id = f"{report.system}_{report.topic}"
            if _same_output(report, kept.get(external_id), stored.get(external_id), store):
                result.add("outputs equal to a stored one")
                continue
            if external_id in kept or external_id in stored:
                distinct = f"{report.file_name}:{report.qid}"
                result.warn(
                    f"{report.record.file}:{report.record.line}: differs from output "
                    f"'{external_id}'; kept as the distinct output '{distinct}'"
                )
                result.add("distinct outputs from per-system files")
                external_id = distinct
        if external_id in kept:
            raise report.record.fail(f"duplicate output id '{external_id}'")
        kept[external_id] = report
        outputs.append(
            GeneratedOutput(
                topic_id=store.topic_ids[report.topic],
                external_id=external_id,
                system=report.system,
                kind=GeneratedOutput.Kind.REPORT,
                text=report.response,
                context_type=report.context_type,
                metadata={"source_file": report.file_name, "qid": report.qid, "k": report.k},
            )
        )
        contexts[external_id] = report.docids
    created = store.ensure_passages(pid for pids in contexts.values() for pid in pids)
    result.add("passages without text", created)
    store.upsert_outputs(outputs, contexts)
    result.add("outputs", len(outputs))


def _same_output(report: _ReportLine, kept: _ReportLine | None, stored, store) -> bool:
    """Is ``report`` the output already read (``kept``) or stored under its canonical id?"""
    if kept is not None:
        return (kept.system, kept.topic, kept.response, kept.docids) == (
            report.system,
            report.topic,
            report.response,
            report.docids,
        )
    if stored is not None:
        return (stored.system, stored.topic_id, stored.text, list(stored.docids)) == (
            report.system,
            store.topic_ids[report.topic],
            report.response,
            report.docids,
        )
    return False
