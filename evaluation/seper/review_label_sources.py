"""SePer's answer-equivalence decisions as machine labels of the review queue (task 3).

A campaign's task-3 item is a generated answer on a QA topic; the kernel's decision on it is
the stored ``AnswerEquivalenceDecision`` whose key is ``equivalence_key(topic, answer text)``
(the key the agreement source matches campaign labels by). One judge per NLI model,
``SePer kernel (<nli>)`` as on the agreement report (a model stores one decision per key).
"""

from __future__ import annotations

from collections.abc import Mapping

from annotation.labels.item_ref import ItemRef
from annotation.labels.sources import MachineLabels, ReviewLabelSource
from annotation.task_types.names import ANSWER_EQUIVALENCE
from crux_app.models import Collection, GeneratedOutput
from evaluation.seper.agreement_sources import MACHINE_KIND, machine_name
from evaluation.seper.models import AnswerEquivalenceDecision, equivalence_key


def load_kernel_labels(collection: Collection, items: Mapping[str, ItemRef]) -> MachineLabels:
    """``{item key: {"SePer kernel (<nli>)": 0 or 1}}`` for the items the kernel decided."""
    outputs = {ref.output_id for ref in items.values() if ref.output_id is not None}
    texts = dict(GeneratedOutput.objects.filter(pk__in=outputs).values_list("pk", "text"))
    item_of = {
        equivalence_key(ref.topic_id, texts[ref.output_id]): key
        for key, ref in items.items()
        if ref.output_id in texts
    }
    decisions = (
        AnswerEquivalenceDecision.objects.filter(topic__collection=collection, key__in=item_of)
        .order_by("pk")
        .values_list("key", "nli", "equivalent")
    )
    out: MachineLabels = {}
    for decision_key, nli, equivalent in decisions:
        out.setdefault(item_of[decision_key], {})[machine_name(nli)] = int(equivalent)
    return out


# Declared in SeperConfig (apps.py).
SOURCE = ReviewLabelSource(
    task=ANSWER_EQUIVALENCE, name="seper_kernel", load=load_kernel_labels, judge_kind=MACHINE_KIND
)
