"""The three imports into a collection: nuggets, answers, and a judge's nugget assignments.

Each reads its whole file first (``file_records``: bad lines are ``FILE:LINE`` errors) and then
writes in one transaction, so a failed import leaves the database as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.db import transaction

from crux_app.dataio.collection_store import CollectionStore
from crux_app.dataio.errors import ImportFailure, checked_file
from crux_app.dataio.results import ImportResult
from crux_app.models import GeneratedOutput, Judge, Run, RunEntry, Topic
from evaluation.nuggets.file_records import (
    Answer,
    Assignments,
    NuggetLine,
    read_answers,
    read_assignments,
    read_nuggets,
)
from evaluation.nuggets.judged_import import JudgedImport
from evaluation.nuggets.models import (
    AnswerSentence,
    Nugget,
    NuggetAssignment,
    NuggetPassageRating,
)


def answer_external_id(run_id: str, topic_id: str) -> str:
    """The ``GeneratedOutput.external_id`` of a run's answer to a topic."""
    return f"{run_id}:{topic_id}"


def _ensure_topics(store: CollectionStore, requests: dict[str, str]) -> int:
    """Create the topics the collection lacks (their request from the file); returns how many."""
    missing = [
        Topic(external_id=qid, request=text)
        for qid, text in requests.items()
        if qid not in store.topic_ids
    ]
    if missing:
        store.upsert_topics(missing, update_fields=["request"])
    return len(missing)


def _forget_labels(nugget_ids: list[int]) -> None:
    """Labels of a nugget whose text changed were given to another statement."""
    NuggetAssignment.objects.filter(nugget_id__in=nugget_ids).delete()
    NuggetPassageRating.objects.filter(nugget_id__in=nugget_ids).delete()


# Kept nuggets move through positions past any list (the (topic, position) key is unique at
# every row an UPDATE writes, so a swap needs a free place in between).
PARKED = 1_000_000_000


def _matched(stored: list[Nugget], lines: Sequence[NuggetLine]) -> list[Nugget | None]:
    """For each line, the stored nugget it keeps: one with the same text (the one at the
    line's position first, then the first in order), else the one left at its position."""
    free = {n.position: n for n in stored}
    matched: list[Nugget | None] = [None] * len(lines)
    for position, line in enumerate(lines):
        nugget = free.get(position)
        if nugget is not None and nugget.text == line.text:
            matched[position] = free.pop(position)
    for position, line in enumerate(lines):
        if matched[position] is None:
            same = next((n for n in free.values() if n.text == line.text), None)
            if same is not None:
                matched[position] = free.pop(same.position)
    for position in range(len(lines)):
        if matched[position] is None and position in free:
            matched[position] = free.pop(position)
    return matched


def store_nuggets(topic_id: int, lines: Sequence[NuggetLine], result: ImportResult) -> list[Nugget]:
    """Make the topic's nuggets ``lines``: a nugget whose text is unchanged keeps its labels
    (and its sub-question link) wherever it moved, a position whose text changed loses them,
    nuggets left over are removed. Returns the nuggets in ``lines``' order."""
    stored = list(Nugget.objects.filter(topic_id=topic_id).order_by("position"))
    matched = _matched(stored, lines)
    kept_pks = {n.pk for n in matched if n is not None}
    removed = [n.pk for n in stored if n.pk not in kept_pks]
    Nugget.objects.filter(pk__in=removed).delete()
    changed, moved, new, result_rows = [], [], [], []
    for position, (line, nugget) in enumerate(zip(lines, matched, strict=True)):
        if nugget is None:
            nugget = Nugget(topic_id=topic_id, position=position, **_fields(line))
            new.append(nugget)
        else:
            if nugget.text != line.text:
                _forget_labels([nugget.pk])
                nugget.subquestion = None
                result.add("nuggets edited")
            else:
                result.add("nuggets kept")
            if nugget.importance != line.importance:
                result.add("nuggets re-labelled")
            if (nugget.text, nugget.importance, nugget.position) != (
                line.text,
                line.importance,
                position,
            ):
                changed.append(nugget)
            nugget.text, nugget.importance = line.text, line.importance
            if nugget.position != position:
                moved.append((nugget, position))
        result_rows.append(nugget)
    if moved:
        for nugget, _ in moved:
            nugget.position += PARKED
        Nugget.objects.bulk_update([n for n, _ in moved], ["position"])
        for nugget, position in moved:
            nugget.position = position
        result.add("nuggets moved", len(moved))
    Nugget.objects.bulk_update(changed, ["text", "importance", "subquestion", "position"])
    Nugget.objects.bulk_create(new)
    result.add("nuggets added", len(new))
    result.add("nuggets removed", len(removed))
    return result_rows


def import_nuggets(
    collection: str, source: Path, *, label: str | None = None, progress: bool = False
) -> ImportResult:
    """Each topic's nuggets as the file lists them: an unchanged text keeps its labels (also
    where it moved), a changed text loses them, nuggets left over are removed; the collection's
    other topics keep theirs."""
    source, label = checked_file(source, label)
    topics = read_nuggets(source, label, progress)
    result = ImportResult(format="nuggets", collection=collection)
    with transaction.atomic():
        store = CollectionStore.open(collection, label=label)
        result.collection_id, result.collection_created = store.collection.pk, store.created
        result.add("topics created", _ensure_topics(store, {t.qid: t.query for t in topics}))
        for topic in topics:
            store_nuggets(store.topic_ids[topic.qid], topic.nuggets, result)
        result.add("topics", len(topics))
    return result


def _fields(line) -> dict[str, str]:
    return {"text": line.text, "importance": line.importance}


def _same_answer(answer: Answer, docids: tuple[str, ...], sentences: list[tuple]) -> bool:
    return docids == answer.references and sentences == [
        (s.text, list(s.citations)) for s in answer.sentences
    ]


def _stored_sentences(output_ids: list[int]) -> dict[int, list[tuple]]:
    by_output: dict[int, list[tuple]] = {pk: [] for pk in output_ids}
    rows = AnswerSentence.objects.filter(output_id__in=output_ids).order_by("output_id", "position")
    for output_id, text, citations in rows.values_list("output_id", "text", "citations"):
        by_output[output_id].append((text, citations))
    return by_output


def import_answers(
    collection: str, source: Path, *, label: str | None = None, progress: bool = False
) -> ImportResult:
    """Each ``run_id`` a run; each line the run's answer to a topic, stored sentence by sentence
    with its citations. An answer whose text, citations and references are unchanged keeps its
    labels; a changed one loses them. A run without a ranking for a topic gets its references,
    in order, as that ranking (the generator's context is what it retrieved)."""
    source, label = checked_file(source, label)
    answers = read_answers(source, label, progress)
    result = ImportResult(format="answers", collection=collection)
    with transaction.atomic():
        store = CollectionStore.open(collection, label=label)
        result.collection_id, result.collection_created = store.collection.pk, store.created
        result.add("topics created", _ensure_topics(store, {a.topic_id: a.topic for a in answers}))
        result.add(
            "passages created", store.ensure_passages(r for a in answers for r in a.references)
        )
        runs = {}
        for name in dict.fromkeys(a.run_id for a in answers):
            runs[name], created = Run.objects.get_or_create(collection=store.collection, name=name)
            result.add("runs created", int(created))
        ids = [answer_external_id(a.run_id, a.topic_id) for a in answers]
        stored = store.stored_outputs(ids)
        sentences = _stored_sentences([s.id for s in stored.values()])
        changed = [
            a
            for a, ext in zip(answers, ids, strict=True)
            if ext not in stored
            or not _same_answer(a, stored[ext].docids, sentences[stored[ext].id])
        ]
        result.add("answers kept", len(answers) - len(changed))
        result.add("answers written", len(changed))
        if changed:
            _write_answers(store, changed, runs)
        _fill_rankings(store, answers, runs)
    return result


def _write_answers(store: CollectionStore, answers: list[Answer], runs: dict[str, Run]) -> None:
    outputs = [
        GeneratedOutput(
            topic_id=store.topic_ids[a.topic_id],
            external_id=answer_external_id(a.run_id, a.topic_id),
            system=a.run_id,
            kind=GeneratedOutput.Kind.REPORT,
            text=" ".join(s.text for s in a.sentences),
            context_type="references",
            metadata={} if a.response_length is None else {"response_length": a.response_length},
        )
        for a in answers
    ]
    ids = store.upsert_outputs(
        outputs, {o.external_id: list(a.references) for o, a in zip(outputs, answers, strict=True)}
    )
    for name, run in runs.items():
        mine = [ids[answer_external_id(a.run_id, a.topic_id)] for a in answers if a.run_id == name]
        GeneratedOutput.objects.filter(pk__in=mine).update(run=run)
    output_ids = list(ids.values())
    AnswerSentence.objects.filter(output_id__in=output_ids).delete()
    NuggetAssignment.objects.filter(output_id__in=output_ids).delete()
    AnswerSentence.objects.bulk_create(
        AnswerSentence(
            output_id=ids[answer_external_id(a.run_id, a.topic_id)],
            position=position,
            text=sentence.text,
            citations=list(sentence.citations),
        )
        for a in answers
        for position, sentence in enumerate(a.sentences)
    )


def _fill_rankings(store: CollectionStore, answers: list[Answer], runs: dict[str, Run]) -> None:
    ranked = set(
        RunEntry.objects.filter(run__in=list(runs.values()))
        .order_by()
        .values_list("run_id", "topic_id")
        .distinct()
    )
    entries = []
    for answer in answers:
        run, topic_id = runs[answer.run_id], store.topic_ids[answer.topic_id]
        if (run.pk, topic_id) in ranked:
            continue
        for rank, docid in enumerate(dict.fromkeys(answer.references), start=1):
            entries.append(
                RunEntry(
                    run=run,
                    topic_id=topic_id,
                    passage_id=store.passage_ids[docid],
                    rank=rank,
                    score=float(-rank),
                    line_order=rank - 1,
                )
            )
    RunEntry.objects.bulk_create(entries)


def _write_assignments(
    store: CollectionStore,
    judge_row: Judge,
    lines: list[Assignments],
    label: str,
    result: ImportResult,
) -> None:
    """One judge's assignments; each line's nuggets are matched to the topic's stored nuggets
    by text (an unknown nugget is an error at its line), and replace that judge's assignments
    to the answer."""
    outputs = dict(
        GeneratedOutput.objects.filter(collection=store.collection).values_list("external_id", "id")
    )
    rows, answered = [], []
    for line in lines:
        topic_id = store.topic_ids.get(line.qid)
        if topic_id is None:
            raise ImportFailure(label, line.line, f"unknown topic '{line.qid}'")
        output_id = outputs.get(answer_external_id(line.run_id, line.qid))
        if output_id is None:
            raise ImportFailure(
                label,
                line.line,
                f"run '{line.run_id}' has no answer to topic '{line.qid}'; import its "
                "answers first",
            )
        by_text = {}
        for nugget in Nugget.objects.filter(topic_id=topic_id).order_by("-position"):
            by_text[nugget.text] = nugget  # the first of repeated texts wins
        taken: set[int] = set()
        for index, item in enumerate(line.nuggets):
            nugget = by_text.get(item.text)
            if nugget is not None and nugget.pk in taken:
                raise ImportFailure(
                    label, line.line, f"nuggets[{index}] repeats a nugget of the line"
                )
            if nugget is None:
                raise ImportFailure(
                    label,
                    line.line,
                    f"nuggets[{index}]: topic '{line.qid}' has no nugget {item.text[:80]!r}",
                )
            if nugget.importance != item.importance:
                result.warn(
                    f"{label}:{line.line}: nuggets[{index}] is {item.importance} in the "
                    f"file, {nugget.importance} in the collection (the collection's kept)"
                )
            taken.add(nugget.pk)
            rows.append(
                NuggetAssignment(
                    judge=judge_row,
                    nugget=nugget,
                    output_id=output_id,
                    assignment=item.assignment,
                )
            )
        answered.append(output_id)
    NuggetAssignment.objects.filter(judge=judge_row, output_id__in=answered).delete()
    NuggetAssignment.objects.bulk_create(rows)
    result.add("assignments", len(rows))
    result.add("answers", len(answered))


import_nugget_assignments = JudgedImport("nugget-assignments", read_assignments, _write_assignments)
