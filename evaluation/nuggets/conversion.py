"""Nuggets from a collection's CRUX sub-questions and CRUX sub-questions from its nuggets, so
the two methods score the same items. Each nugget keeps a link to its sub-question: CRUX's
passage ratings of the sub-question then say which passages support the nugget."""

from __future__ import annotations

from django.db import transaction

from crux_app.data_version import bump_before_writes
from crux_app.dataio.results import ImportResult
from crux_app.models import Collection, SubQuestion
from evaluation.nuggets.file_records import NuggetLine
from evaluation.nuggets.imports import store_nuggets
from evaluation.nuggets.method.scores import IMPORTANCES, VITAL
from evaluation.nuggets.models import Nugget


def nuggets_from_subquestions(collection: Collection, importance: str = VITAL) -> ImportResult:
    """Each topic's non-placeholder sub-questions, in order, become its nuggets (a topic
    without sub-questions keeps its nuggets). A nugget whose text is unchanged keeps its
    importance and labels; a new one gets ``importance`` (CRUX has no importance labels)."""
    if importance not in IMPORTANCES:
        raise ValueError(f"importance must be vital or okay, got {importance!r}")
    result = ImportResult(format="nuggets-from-subquestions", collection=collection.name)
    with transaction.atomic():
        bump_before_writes(collection.pk)
        questions = SubQuestion.objects.filter(
            topic__collection=collection, is_placeholder=False
        ).order_by("topic_id", "position")
        by_topic: dict[int, list[SubQuestion]] = {}
        for question in questions:
            by_topic.setdefault(question.topic_id, []).append(question)
        for topic_id, subquestions in by_topic.items():
            current = {n.position: n for n in Nugget.objects.filter(topic_id=topic_id)}
            lines = []
            for position, question in enumerate(subquestions):
                old = current.get(position)
                same = old is not None and old.text == question.text
                lines.append(NuggetLine(question.text, old.importance if same else importance))
            nuggets = store_nuggets(topic_id, lines, result)
            for nugget, question in zip(nuggets, subquestions, strict=True):
                nugget.subquestion = question
            Nugget.objects.bulk_update(nuggets, ["subquestion"])
        result.add("topics", len(by_topic))
    return result


def subquestions_from_nuggets(collection: Collection) -> ImportResult:
    """Each nugget without a sub-question becomes one, appended after the topic's existing
    positions (CRUX's positional label files stay valid) and linked to it."""
    result = ImportResult(format="subquestions-from-nuggets", collection=collection.name)
    with transaction.atomic():
        bump_before_writes(collection.pk)
        nuggets = list(
            Nugget.objects.filter(topic__collection=collection, subquestion__isnull=True).order_by(
                "topic_id", "position"
            )
        )
        next_position: dict[int, int] = {}
        for nugget in nuggets:
            if nugget.topic_id not in next_position:
                last = (
                    SubQuestion.objects.filter(topic_id=nugget.topic_id)
                    .order_by("-position")
                    .values_list("position", flat=True)
                    .first()
                )
                next_position[nugget.topic_id] = 0 if last is None else last + 1
            nugget.subquestion = SubQuestion.objects.create(
                topic_id=nugget.topic_id, position=next_position[nugget.topic_id], text=nugget.text
            )
            next_position[nugget.topic_id] += 1
            result.add("sub-questions created")
        Nugget.objects.bulk_update(nuggets, ["subquestion"])
    return result
