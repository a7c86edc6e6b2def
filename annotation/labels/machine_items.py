"""Review items made from a collection's rows, for the answers no person labelled.

Machine judges of answer equivalence and failure category (the methods' review label sources,
``annotation/labels/sources.py``) label generated answers whether or not a campaign ever
showed them to people; two such judges disagreeing is worth a review on its own. Each of the
collection's answers (semi-gold answers are references, never items) is offered to the sources
with the reference a campaign item of the task would carry (``annotation/queue/selection.py``'s
``equivalence_specs`` and ``failure_specs``): none for answer equivalence, the topic's first
semi-gold answer for failure category (each task type's ``machine_items``). The review
campaign's payload is then built from the reference as for any item
(``annotation/review/campaigns.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.labels.item_ref import ItemRef
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.models import Collection, GeneratedOutput
from crux_app.vocabulary import SEMI_GOLD_PREFIX


@dataclass(frozen=True)
class MachineItems:
    refs: dict[str, ItemRef]  # item key -> what it is
    topics: dict[str, str]  # item key -> topic id


def answer_items(collection: Collection, task_type: str) -> MachineItems:
    """Every row of the collection as a review item of ``task_type``, as the task declares
    them (``TaskType.machine_items``; none for a task that declares none)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    if entry is None or entry.machine_items is None:
        return MachineItems({}, {})
    return entry.machine_items(collection)


def generated_answer_items(collection: Collection, semi_gold_reference: bool) -> MachineItems:
    """Every generated answer of the collection as a review item, keyed as the campaign
    answers are (``<topic>/<output id>``), with the topic's first semi-gold answer as
    reference when ``semi_gold_reference``."""
    answers = collection.outputs.filter(kind=GeneratedOutput.Kind.ANSWER)
    references: dict[int, int] = {}
    if semi_gold_reference:
        semi_gold = answers.filter(system__startswith=SEMI_GOLD_PREFIX).order_by(
            "topic_id", "-external_id"
        )
        # Ordered last-first so the first semi-gold answer by id is the one kept.
        references = dict(semi_gold.values_list("topic_id", "pk"))
    rows = answers.exclude(system__startswith=SEMI_GOLD_PREFIX).values_list(
        "pk", "external_id", "topic_id", "topic__external_id"
    )
    refs, topics = {}, {}
    for pk, external_id, topic_id, topic in rows:
        key = f"{topic}/{external_id}"
        refs[key] = ItemRef(topic_id, output_id=pk, reference_output_id=references.get(topic_id))
        topics[key] = topic
    return MachineItems(refs, topics)
