"""Import one threshold folder of the CRUX hub release (``DylanJHJ/crux``, ``ranking_{tau}/``).

Files read from the folder (``{split}`` and ``{tau}`` from the command line):

- ``{split}_topics.tsv`` (``qid<TAB>request``) and/or ``{split}_topics.jsonl``
  (``example_id, topic, questions, report``) and/or ``{split}_questions.jsonl``
  (``example_id, topic, questions``, as CRUX's ``create_diversity_qrels.py`` writes it).
  The request is taken from topics.jsonl, else questions.jsonl, else the TSV; the sub-questions
  from questions.jsonl, else topics.jsonl. ``questions`` is a list of strings (``null``
  becomes a placeholder position); ``qid``/``id`` are accepted for ``example_id`` and
  ``subquestions`` for ``questions``.
- ``{split}_oracle-passages_judgements.jsonl`` or ``{split}_judgements.jsonl``: one line per
  passage, ``{"example_id", "pid", "rating": [0-5 per sub-question]}``. The pid
  ``{qid}:report`` is the oracle report: stored as the output ``{qid}:report`` of system
  ``oracle-report``, judged like a passage.
- ``{split}_qrels_pr.txt`` or ``{split}_qrels_oracle_context_pr.txt`` (``qid 0 pid grade``)
  -> passage qrels with source ``crux_tau{tau}``.
- ``{split}_div_qrels_pr.txt`` (``qid subquestion_index pid relevance``, index 1-based;
  relevance > 0 means relevant) -> subtopic qrels.
- ``passages/*.jsonl`` (``{"id", "contents"}``; ``_id``/``text`` accepted) in the folder or in
  the release root above it. A passage named by judgements or qrels must be in these files or
  already in the collection; otherwise the import stops at that line.

All judgments belong to one LLM judge standing for the release's judge.

The import is one transaction: a bad line stops it as ``FILE:LINE: reason`` and nothing is
written. Each file is read and checked line by line in Python; on PostgreSQL its rows then go
through COPY into a stage table and one set-based merge per table (``staged_upsert``, and
``rating_vectors`` for the judgements: one COPY row per line, unnested in SQL), with foreign
keys checked once per referenced row (``reference_checks``). Other databases take the ORM's
batched upserts. Re-importing the same files writes nothing.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from crux_app.models import GeneratedOutput, Judgment, Passage, PassageQrel, SubtopicQrel, Topic

from ..collection_store import CollectionStore
from ..errors import ImportFailure
from ..label_store import llm_judge
from ..rating_vectors import RatingVectors
from ..readers import Record, SourceDir, read_columns, read_jsonl, read_tsv_pairs
from ..results import ImportResult
from ..staged_upsert import StagedUpsert

RELEASE_JUDGE_MODEL = "meta-llama/Llama-3.1-70B-Instruct"
RELEASE_PROMPT_VERSION = "crux-release"
REPORT_SYSTEM = "oracle-report"
REPORT_SUFFIX = ":report"
MAX_RATING = 5


@dataclass
class _TopicDraft:
    request: str = ""
    request_rank: int = 99  # lower = more trusted source of the request text
    report: str | None = None
    questions: list[str | None] | None = None
    questions_from_questions_file: bool = False
    questions_at: tuple[str, int | None] = ("", None)


@dataclass
class _ReleaseFiles:
    folder: Path
    topics_tsv: Path | None = None
    topics_jsonl: Path | None = None
    questions: Path | None = None
    judgements: Path | None = None
    qrels: Path | None = None
    div_qrels: Path | None = None
    passages: list[Path] = field(default_factory=list)


def _first_existing(folder: Path, names: list[str], result: ImportResult) -> Path | None:
    found = [folder / name for name in names if (folder / name).is_file()]
    for ignored in found[1:]:
        result.warn(f"{ignored.name} ignored: {found[0].name} holds the same content")
    return found[0] if found else None


def _locate(src: SourceDir, split: str, tau: int, result: ImportResult) -> _ReleaseFiles:
    root = src.root
    if not root.is_dir():
        raise ImportFailure(src.name or str(root), None, "not a folder")
    named = re.fullmatch(r"ranking_(\d+)", root.name)
    if named and int(named.group(1)) != tau:
        reason = f"this is the {root.name} folder but tau is {tau}"
        raise ImportFailure(src.label(root), None, reason)
    folder = root / f"ranking_{tau}" if (root / f"ranking_{tau}").is_dir() else root
    if not any(folder.glob(f"{split}_*")):
        raise ImportFailure(
            src.label(root), None, f"no ranking_{tau}/ folder and no {split}_* release files here"
        )
    files = _ReleaseFiles(folder)
    files.topics_tsv = _first_existing(folder, [f"{split}_topics.tsv"], result)
    files.topics_jsonl = _first_existing(folder, [f"{split}_topics.jsonl"], result)
    files.questions = _first_existing(folder, [f"{split}_questions.jsonl"], result)
    files.judgements = _first_existing(
        folder, [f"{split}_oracle-passages_judgements.jsonl", f"{split}_judgements.jsonl"], result
    )
    files.qrels = _first_existing(
        folder, [f"{split}_qrels_pr.txt", f"{split}_qrels_oracle_context_pr.txt"], result
    )
    files.div_qrels = _first_existing(folder, [f"{split}_div_qrels_pr.txt"], result)
    for candidate in (folder / "passages", folder.parent / "passages", root / "passages"):
        if candidate.is_dir():
            files.passages = sorted(candidate.glob("*.jsonl"))
            break
    return files


def import_crux(
    collection: str,
    source: Path,
    *,
    split: str,
    tau: int,
    label: str | None = None,
    progress: bool = False,
) -> ImportResult:
    """Import ``source`` (the release root or its ``ranking_{tau}`` folder) into ``collection``."""
    source = Path(source)
    result = ImportResult(format="crux", collection=collection)
    src = SourceDir(source, str(source) if label is None else label)
    files = _locate(src, split, tau, result)
    with transaction.atomic():
        store = CollectionStore.open(collection)
        result.collection_id, result.collection_created = store.collection.pk, store.created
        _Release(files, src, store, tau, result, progress).run()
    return result


class _Release:
    """One import of a release folder; methods run in file order, sharing id maps."""

    def __init__(self, files, src, store, tau, result, progress) -> None:
        self.files: _ReleaseFiles = files
        self.src: SourceDir = src
        self.store: CollectionStore = store
        self.tau: int = tau
        self.result: ImportResult = result
        self.progress: bool = progress
        self.report_ids: dict[str, int] = {}  # topic external id -> report output pk

    def run(self) -> None:
        drafts = self._read_topics()
        self._store_topics(drafts)
        self._store_passages()
        if self.files.judgements:
            self._store_judgements(self.files.judgements)
        if self.files.qrels:
            self._store_qrels(self.files.qrels)
        if self.files.div_qrels:
            self._store_div_qrels(self.files.div_qrels)

    # Topics -----------------------------------------------------------------------------

    def _read_topics(self) -> dict[str, _TopicDraft]:
        drafts: dict[str, _TopicDraft] = {}
        if self.files.topics_tsv:
            label = self.src.label(self.files.topics_tsv)
            for row in read_tsv_pairs(self.files.topics_tsv, label, "qid<TAB>request"):
                qid, request = row.fields
                if qid in drafts:
                    raise row.fail(f"duplicate topic id '{qid}'")
                drafts[qid] = _TopicDraft(request=request, request_rank=3)
        for path, rank, is_questions_file in (
            (self.files.topics_jsonl, 1, False),
            (self.files.questions, 2, True),
        ):
            if path:
                seen: set[str] = set()
                for record in read_jsonl(path, self.src.label(path)):
                    self._merge_topic_record(record, drafts, seen, rank, is_questions_file)
        if not drafts:
            raise ImportFailure(self.src.label(self.files.folder), None, "no topics found")
        return drafts

    @staticmethod
    def _merge_topic_record(record: Record, drafts, seen, rank: int, is_questions_file) -> None:
        qid = str(record.first_field(("example_id", "qid", "id"), str, int))
        if qid in seen:
            raise record.fail(f"duplicate topic id '{qid}'")
        seen.add(qid)
        draft = drafts.setdefault(qid, _TopicDraft())
        request = record.field("topic", str, optional=True)
        if request is not None and rank < draft.request_rank:
            draft.request, draft.request_rank = request, rank
        report = record.field("report", str, optional=True)
        if report is not None:
            draft.report = report
        key = "subquestions" if "subquestions" in record.data else "questions"
        if key not in record.data and not is_questions_file:
            return
        questions = record.field(key, list)
        for i, question in enumerate(questions):
            if question is not None and not isinstance(question, str):
                raise record.fail(f"{key}[{i}] must be a string or null")
        # questions.jsonl is the release's own sub-question file: it wins over topics.jsonl.
        if is_questions_file or not draft.questions_from_questions_file:
            draft.questions = questions
            draft.questions_from_questions_file = is_questions_file
            draft.questions_at = (record.file, record.line)

    def _store_topics(self, drafts: dict[str, _TopicDraft]) -> None:
        has_reports = any(d.report is not None for d in drafts.values())
        topics = [
            Topic(external_id=qid, request=d.request, reference_report=d.report or "")
            for qid, d in drafts.items()
        ]
        fields = ["request", "reference_report"] if has_reports else ["request"]
        self.store.upsert_topics(topics, update_fields=fields)
        self.result.add("topics", len(topics))

        questions = {
            self.store.topic_ids[qid]: d.questions
            for qid, d in drafts.items()
            if d.questions is not None
        }
        counts = self.store.subquestion_counts(questions)
        for qid, draft in drafts.items():
            topic_id = self.store.topic_ids[qid]
            stored = counts.get(topic_id)
            if draft.questions is not None and stored and stored != len(draft.questions):
                raise ImportFailure(
                    *draft.questions_at,
                    f"topic '{qid}' already has {stored} sub-questions in this collection; "
                    f"the release gives {len(draft.questions)}",
                )
        self.result.add("sub-questions", self.store.upsert_subquestions(questions))

        reports = [
            GeneratedOutput(
                topic_id=self.store.topic_ids[qid],
                external_id=f"{qid}{REPORT_SUFFIX}",
                system=REPORT_SYSTEM,
                kind=GeneratedOutput.Kind.REPORT,
                text=d.report,
                context_type="oracle",
            )
            for qid, d in drafts.items()
            if d.report is not None
        ]
        ids = self.store.upsert_outputs(reports, {})
        self.report_ids = {ext.removesuffix(REPORT_SUFFIX): pk for ext, pk in ids.items()}
        self.result.add("oracle reports", len(reports))

    # Passages ---------------------------------------------------------------------------

    def _store_passages(self) -> None:
        seen: set[str] = set()
        passages = StagedUpsert(
            Passage,
            ["collection_id", "external_id", "text", "has_text"],
            unique=["collection_id", "external_id"],
            update=["text", "has_text"],
        )
        collection_id = self.store.collection.pk
        for path in self.files.passages:
            for record in read_jsonl(path, self.src.label(path), self.progress):
                pid = str(record.first_field(("id", "_id"), str, int))
                text = record.first_field(("contents", "text"), str)
                if pid in seen:
                    raise record.fail(f"duplicate passage id '{pid}'")
                seen.add(pid)
                passages.add((collection_id, pid, text, True))
        self.result.add("passages", passages.merge())
        if seen:
            self.store.reload_passage_ids()

    def _passage_id(self, pid: str, fail) -> int:
        passage_id = self.store.passage_ids.get(pid)
        if passage_id is None:
            raise fail(
                f"passage '{pid}' is neither in passages/*.jsonl nor already in collection "
                f"'{self.store.collection.name}'"
            )
        return passage_id

    def _topic_id(self, qid: str, fail) -> int:
        topic_id = self.store.topic_ids.get(qid)
        if topic_id is None:
            raise fail(f"unknown topic '{qid}'")
        return topic_id

    # Judgements -------------------------------------------------------------------------

    def _store_judgements(self, path: Path) -> None:
        judge = llm_judge(RELEASE_JUDGE_MODEL, RELEASE_PROMPT_VERSION)
        self.store.load_subquestions(self.store.topic_ids.values())
        task = Judgment.Task.PASSAGE_RATING
        passages = RatingVectors(judge, "passage", task)
        reports = RatingVectors(judge, "output", task)
        subquestion_ids: dict[int, list[int]] = {}
        seen: set[tuple[str, str]] = set()
        for record in read_jsonl(path, self.src.label(path), self.progress):
            qid = str(record.first_field(("example_id", "qid", "id"), str, int))
            pid = str(record.field("pid", str, int))
            ratings = record.field("rating", list)
            topic_id = self._topic_id(qid, record.fail)
            if (qid, pid) in seen:
                raise record.fail(f"duplicate judgement of passage '{pid}' for topic '{qid}'")
            seen.add((qid, pid))
            if topic_id not in subquestion_ids:
                subquestion_ids[topic_id] = [sq.id for sq in self.store.subquestions(topic_id)]
            expected = len(subquestion_ids[topic_id])
            if len(ratings) != expected:
                raise record.fail(
                    f"rating has {len(ratings)} values but topic '{qid}' has "
                    f"{expected} sub-questions"
                )
            for i, value in enumerate(ratings):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise record.fail(f"rating[{i}] must be an integer 0-{MAX_RATING}")
                if not 0 <= value <= MAX_RATING:
                    raise record.fail(f"rating[{i}] must be 0-{MAX_RATING}, got {value}")
            if pid == f"{qid}{REPORT_SUFFIX}":
                target, item_id = reports, self._report_id(qid, topic_id)
            else:
                target, item_id = passages, self._passage_id(pid, record.fail)
            target.add(topic_id, item_id, subquestion_ids[topic_id], ratings)
        self.result.add("passage judgments", passages.merge())
        self.result.add("report judgments", reports.merge())

    def _report_id(self, qid: str, topic_id: int) -> int:
        if qid not in self.report_ids:
            self.result.warn(f"topic '{qid}': report judged but its text is not in topics.jsonl")
            output = GeneratedOutput(
                topic_id=topic_id,
                external_id=f"{qid}{REPORT_SUFFIX}",
                system=REPORT_SYSTEM,
                kind=GeneratedOutput.Kind.REPORT,
                text="",
                context_type="oracle",
            )
            self.report_ids[qid] = self.store.upsert_outputs([output], {})[output.external_id]
        return self.report_ids[qid]

    # Qrels ------------------------------------------------------------------------------

    def _store_qrels(self, path: Path) -> None:
        source = f"crux_tau{self.tau}"
        seen: dict[tuple[str, str], int] = {}
        qrels = StagedUpsert(
            PassageQrel,
            ["topic_id", "passage_id", "grade", "source"],
            unique=["topic_id", "passage_id", "source"],
            update=["grade"],
        )
        layout = "qid 0 pid grade"
        for row in read_columns(path, self.src.label(path), 4, layout, self.progress):
            qid, _, pid, _ = row.fields
            grade = row.int(3, "grade")
            topic_id = self._topic_id(qid, row.fail)
            if (qid, pid) in seen:
                raise row.fail(f"duplicate qrel for ({qid}, {pid}), first at line {seen[qid, pid]}")
            seen[qid, pid] = row.line
            qrels.add((topic_id, self._passage_id(pid, row.fail), grade, source))
        self.result.add("passage qrels", qrels.merge())

    def _store_div_qrels(self, path: Path) -> None:
        seen: dict[tuple[str, int, str], int] = {}
        qrels = StagedUpsert(
            SubtopicQrel,
            ["topic_id", "subquestion_id", "passage_id", "relevant"],
            unique=["subquestion_id", "passage_id"],
            update=["topic_id", "relevant"],
        )
        layout = "qid subquestion_index pid relevance"
        for row in read_columns(path, self.src.label(path), 4, layout, self.progress):
            qid, _, pid, _ = row.fields
            index = row.int(1, "subquestion_index")
            relevance = row.int(3, "relevance")
            topic_id = self._topic_id(qid, row.fail)
            subquestions = self.store.subquestions(topic_id)
            if not 1 <= index <= len(subquestions):
                raise row.fail(
                    f"subquestion_index {index} is out of range 1-{len(subquestions)} "
                    f"for topic '{qid}'"
                )
            if relevance < 0:
                raise row.fail(f"relevance must be 0 or more, got {relevance}")
            if (qid, index, pid) in seen:
                raise row.fail(f"duplicate line, first at line {seen[qid, index, pid]}")
            seen[qid, index, pid] = row.line
            passage_id = self._passage_id(pid, row.fail)
            qrels.add((topic_id, subquestions[index - 1].id, passage_id, relevance > 0))
        self.result.add("subtopic qrels", qrels.merge())
