"""The nuggetizer's and the TREC RAG track's JSONL lines, read and checked one line at a time.

Every check names the line (``FILE:LINE: reason``); nothing is written here. Topic ids may be
JSON strings or integers (the track's files use both) and are kept as their text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crux_app.dataio.errors import ImportFailure
from crux_app.dataio.readers import Record, read_jsonl
from evaluation.nuggets.method.list_edits import clean_text
from evaluation.nuggets.method.scores import ASSIGNMENTS, IMPORTANCES
from evaluation.nuggets.post_edit_answers import MAX_NUGGETS, MAX_TEXT_CHARS

MAX_ID = 200  # Topic.external_id and Run.name


@dataclass(frozen=True)
class NuggetLine:
    text: str
    importance: str
    assignment: str = ""


@dataclass(frozen=True)
class TopicNuggets:
    line: int
    qid: str
    query: str
    nuggets: tuple[NuggetLine, ...]


@dataclass(frozen=True)
class Sentence:
    text: str
    citations: tuple[int, ...]


@dataclass(frozen=True)
class Answer:
    line: int
    run_id: str
    topic_id: str
    topic: str
    references: tuple[str, ...]
    response_length: int | None
    sentences: tuple[Sentence, ...]


@dataclass(frozen=True)
class Assignments:
    line: int
    qid: str
    run_id: str
    nuggets: tuple[NuggetLine, ...]


def _identifier(record: Record, key: str) -> str:
    value = record.field(key, str, int)
    text = str(value).strip()
    if not text:
        raise record.fail(f"field '{key}' is empty")
    if len(text) > MAX_ID:
        raise record.fail(f"field '{key}' is {len(text)} characters long, at most {MAX_ID}")
    return text


def _objects(record: Record, key: str) -> list[dict]:
    items = record.field(key, list)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise record.fail(f"{key}[{index}] must be an object")
    return items


def _nugget(record: Record, index: int, item: dict, with_assignment: bool) -> NuggetLine:
    where = f"nuggets[{index}]"
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        raise record.fail(f"{where}: 'text' must be a non-empty string")
    # Refused here, not when an annotator submits it: the post-editing workspace takes no
    # longer nugget, so such an item could never be submitted.
    length = len(clean_text(text))
    if length > MAX_TEXT_CHARS:
        raise record.fail(
            f"{where}: 'text' is {length:,} characters long, at most {MAX_TEXT_CHARS} "
            "(a nugget is one short statement)"
        )
    importance = item.get("importance")
    if importance not in IMPORTANCES:
        raise record.fail(f"{where}: 'importance' must be vital or okay, got {importance!r}")
    assignment = ""
    if with_assignment:
        assignment = item.get("assignment")
        if assignment not in ASSIGNMENTS:
            raise record.fail(
                f"{where}: 'assignment' must be one of {', '.join(ASSIGNMENTS)}, got {assignment!r}"
            )
    return NuggetLine(text, importance, assignment)


def _once(record: Record, key: tuple[str, ...], seen: dict[tuple[str, ...], int]) -> None:
    if key in seen:
        raise record.fail(f"{' / '.join(key)} repeats line {seen[key]}")
    seen[key] = record.line


def _nonempty(items: list, label: str) -> list:
    if not items:
        raise ImportFailure(label, None, "the file holds no lines")
    return items


def read_nuggets(path: Path, label: str, progress: bool = False) -> list[TopicNuggets]:
    """nuggetizer create output: ``{"qid", "query", "nuggets": [{"text", "importance"}]}``."""
    topics, seen = [], {}
    for record in read_jsonl(path, label, progress):
        qid = _identifier(record, "qid")
        _once(record, (qid,), seen)
        query = record.field("query", str)
        items = _objects(record, "nuggets")
        # Refused here for the reason long texts are: the post-editing workspace takes no
        # longer list, so the topic's post-editing item could never be submitted.
        if len(items) > MAX_NUGGETS:
            raise record.fail(
                f"topic '{qid}' has {len(items):,} nuggets, at most {MAX_NUGGETS} "
                "(the post-editing workspace's cap on a topic's list)"
            )
        nuggets = tuple(_nugget(record, i, item, False) for i, item in enumerate(items))
        topics.append(TopicNuggets(record.line, qid, query, nuggets))
    return _nonempty(topics, label)


def _sentence(record: Record, index: int, item: dict, references: int) -> Sentence:
    where = f"answer[{index}]"
    text = item.get("text")
    if not isinstance(text, str):
        raise record.fail(f"{where}: 'text' must be a string")
    citations = item.get("citations", [])
    if not isinstance(citations, list):
        raise record.fail(f"{where}: 'citations' must be a list")
    for citation in citations:
        if isinstance(citation, bool) or not isinstance(citation, int):
            raise record.fail(f"{where}: a citation must be an integer, got {citation!r}")
        if not 0 <= citation < references:
            raise record.fail(
                f"{where}: citation {citation} is not an index into the {references} references"
            )
    return Sentence(text, tuple(citations))


def read_answers(path: Path, label: str, progress: bool = False) -> list[Answer]:
    """TREC RAG 2024 answers: ``{"run_id", "topic_id", "topic", "references",
    "response_length", "answer": [{"text", "citations"}]}``."""
    answers, seen = [], {}
    for record in read_jsonl(path, label, progress):
        run_id = _identifier(record, "run_id")
        topic_id = _identifier(record, "topic_id")
        _once(record, (run_id, topic_id), seen)
        topic = record.field("topic", str)
        references = record.field("references", list)
        for reference in references:
            if not isinstance(reference, str) or not reference.strip():
                raise record.fail(f"a reference must be a non-empty docid, got {reference!r}")
        length = record.field("response_length", int, optional=True)
        if length is not None and length < 0:
            raise record.fail("field 'response_length' must not be negative")
        items = _objects(record, "answer")
        sentences = tuple(_sentence(record, i, s, len(references)) for i, s in enumerate(items))
        answers.append(
            Answer(record.line, run_id, topic_id, topic, tuple(references), length, sentences)
        )
    return _nonempty(answers, label)


def read_assignments(path: Path, label: str, progress: bool = False) -> list[Assignments]:
    """nuggetizer assign output: ``{"qid", "run_id", "nuggets": [{"text", "importance",
    "assignment"}]}`` (other keys, such as the answer text, are ignored)."""
    lines, seen = [], {}
    for record in read_jsonl(path, label, progress):
        qid = _identifier(record, "qid")
        run_id = _identifier(record, "run_id")
        _once(record, (run_id, qid), seen)
        items = _objects(record, "nuggets")
        nuggets = tuple(_nugget(record, i, item, True) for i, item in enumerate(items))
        lines.append(Assignments(record.line, qid, run_id, nuggets))
    return _nonempty(lines, label)


@dataclass(frozen=True)
class PassageRating:
    line: int
    qid: str
    docid: str
    nugget: str
    rating: int


def read_ratings(path: Path, label: str, progress: bool = False) -> list[PassageRating]:
    """Nugget-passage ratings: ``{"qid", "docid", "nugget", "rating"}``, the rating 0-5 as
    CRUX rates a passage against a sub-question."""
    ratings, seen = [], {}
    for record in read_jsonl(path, label, progress):
        qid = _identifier(record, "qid")
        docid = _identifier(record, "docid")
        nugget = record.field("nugget", str)
        _once(record, (qid, docid, nugget), seen)
        rating = record.field("rating", int)
        if not 0 <= rating <= 5:
            raise record.fail(f"field 'rating' must lie in 0..5, got {rating}")
        ratings.append(PassageRating(record.line, qid, docid, nugget, rating))
    return _nonempty(ratings, label)
