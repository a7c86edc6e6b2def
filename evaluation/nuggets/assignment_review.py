"""Nugget assignments in the review queue (``annotation/labels/sources.py``): every
judge's support label of each (nugget, answer) of a collection, people's (their campaign
labels, mirrored as ``NuggetAssignment`` rows of their human judge, or imported) and the LLM
nugget judges' alike, so ``manage.py review_queue --task nugget_assignment`` and review
campaigns find disagreements among people and between people and LLMs.

An item's key is ``<topic>/n<nugget position>/<answer id>``; the reviewer reads the topic,
the nugget with its importance and the answer. A decision is stored as the review campaign's
adjudicated judge's assignment (a reference judge for the nugget pages and the agreement
report); adjudicated labels are references, never candidates, unless named.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.labels.item_ref import ItemRef, Label
from annotation.labels.sources import MachineLabels, ReviewLabelSource, StoredLabels
from crux_app.data_version import bump_topics
from crux_app.models import Collection, GeneratedOutput, Judge
from evaluation.nuggets.assignment_task import TASK_KEY
from evaluation.nuggets.method.scores import CREDIT
from evaluation.nuggets.models import AnswerSentence, Nugget, NuggetAssignment


def item_key(topic: str, nugget_position: Any, output: Any) -> str:
    return f"{topic}/n{nugget_position}/{output}"


def answer_unit(payload: Mapping[str, Any], answer: Mapping[str, Any]) -> tuple[str, str] | None:
    """A campaign answer as (label, review item key): the annotator quality page's unit."""
    label = answer.get("assignment")
    if label not in CREDIT:
        return None
    return label, item_key(
        payload.get("topic", ""), payload.get("nugget_position"), payload.get("output_id")
    )


def stored_labels(collection: Collection) -> StoredLabels:
    """Every stored nugget assignment of the collection's answers, by item and judge."""
    rows = (
        NuggetAssignment.objects.filter(output__collection=collection)
        .order_by()
        .values_list(
            "judge__name",
            "judge__kind",
            "nugget_id",
            "nugget__position",
            "nugget__subquestion_id",
            "nugget__topic_id",
            "nugget__topic__external_id",
            "output_id",
            "output__external_id",
            "assignment",
        )
    )
    out = StoredLabels(labels=defaultdict(dict), refs={}, topics={}, kinds={})
    for judge, kind, nugget, position, sq, topic_id, topic, output, output_ext, label in rows:
        key = item_key(topic, position, output_ext)
        out.kinds[judge] = kind
        out.labels[key][judge] = label
        out.topics[key] = topic
        out.refs[key] = ItemRef(topic_id, subquestion_id=sq, output_id=output, own_id=nugget)
    return out


def machine_labels(collection: Collection, items: Mapping[str, ItemRef]) -> MachineLabels:
    """The machine judges' assignments of these items (those naming a nugget)."""
    wanted = {(r.own_id, r.output_id): key for key, r in items.items() if r.own_id is not None}
    rows = (
        NuggetAssignment.objects.filter(
            output__collection=collection,
            nugget_id__in={n for n, _ in wanted},
            output_id__in={o for _, o in wanted},
        )
        .exclude(judge__kind=Judge.Kind.HUMAN)
        .values_list("judge__name", "nugget_id", "output_id", "assignment")
    )
    out: MachineLabels = {}
    for judge, nugget, output, label in rows:
        if (nugget, output) in wanted:
            out.setdefault(wanted[(nugget, output)], {})[judge] = label
    return out


def review_payloads(refs: Sequence[ItemRef]) -> dict[ItemRef, dict]:
    """What the reviewer reads: the topic, the nugget with its importance and the answer."""
    nuggets = Nugget.objects.select_related("topic").in_bulk({r.own_id for r in refs} - {None})
    outputs = GeneratedOutput.objects.in_bulk({r.output_id for r in refs} - {None})
    sentences: dict[int, list[str]] = defaultdict(list)
    rows = AnswerSentence.objects.filter(output_id__in=outputs).order_by("output_id", "position")
    for output_id, text in rows.values_list("output_id", "text"):
        sentences[output_id].append(text)
    out = {}
    for ref in refs:
        nugget, output = nuggets[ref.own_id], outputs[ref.output_id]
        out[ref] = {
            "topic": nugget.topic.external_id,
            "request": nugget.topic.request,
            "details": [[f"Nugget ({nugget.importance})", nugget.text]],
            "nugget_id": nugget.pk,
            "output_id": output.external_id,
            "text": " ".join(sentences[output.pk]) or output.text,
        }
    return out


def write_adjudicated(judge_id: int, item: Any, label: Label, note: str) -> bool:
    """A review decision as the adjudicated judge's assignment of the item's (nugget,
    answer); the note is kept as its raw output."""
    nugget_id = (item.payload or {}).get("nugget_id")
    if label not in CREDIT or item.output_id is None or not isinstance(nugget_id, int):
        return False
    if not Nugget.objects.filter(pk=nugget_id).exists():
        return False
    NuggetAssignment.objects.update_or_create(
        judge_id=judge_id,
        nugget_id=nugget_id,
        output_id=item.output_id,
        defaults={"assignment": label, "distribution": None, "raw_output": note},
    )
    bump_topics({item.topic_id})
    return True


def clear_adjudicated(judge_id: int, collection_ids: set[int]) -> set[int]:
    """Remove an adjudicated judge's assignments on these collections (before a merge
    rebuilds them); the topics they were on."""
    found = NuggetAssignment.objects.filter(
        judge_id=judge_id, nugget__topic__collection_id__in=collection_ids
    )
    topics = set(found.values_list("nugget__topic_id", flat=True))
    found.delete()
    return topics


# Declared in NuggetsConfig (apps.py).
SOURCE = ReviewLabelSource(
    task=TASK_KEY,
    name="nugget_assignments",
    load=machine_labels,
    stored=stored_labels,
    payloads=review_payloads,
    write_adjudicated=write_adjudicated,
    clear_adjudicated=clear_adjudicated,
)
