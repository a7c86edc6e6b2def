"""LLM-retEval's failure categories as machine labels of the review queue (task 4).

A campaign's task-4 item is a RAG answer (``GeneratedOutput``); LLM-retEval's category of it is
the ``RetEvalResult`` of that answer under the current prompt version (the rows the agreement
source compares too). One judge per LLM, ``reteval-prelabel:<judge>`` as on the agreement
report; the latest result of a judge counts. Labels are the letters A-F campaign answers use.
"""

from __future__ import annotations

from collections.abc import Mapping

from annotation.labels.item_ref import ItemRef
from annotation.labels.sources import MachineLabels, ReviewLabelSource
from annotation.task_types.names import FAILURE_CATEGORY
from crux_app.models import Collection
from evaluation.reteval.agreement_sources import machine_rater_name
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.models import RetEvalResult


def load_category_labels(collection: Collection, items: Mapping[str, ItemRef]) -> MachineLabels:
    """``{item key: {"reteval-prelabel:<judge>": "A".."F"}}`` for the categorised items."""
    item_of = {ref.output_id: key for key, ref in items.items() if ref.output_id is not None}
    results = (
        RetEvalResult.objects.filter(
            topic__collection=collection, prompt_version=PROMPT_VERSION, rag_output_id__in=item_of
        )
        .exclude(category="")
        .order_by("updated_at", "pk")
        .values_list("rag_output_id", "judge", "category")
    )
    out: MachineLabels = {}
    for output_id, judge, category in results:  # later rows overwrite earlier ones
        out.setdefault(item_of[output_id], {})[machine_rater_name(judge)] = category
    return out


# Declared in RetevalConfig (apps.py).
SOURCE = ReviewLabelSource(
    task=FAILURE_CATEGORY, name="reteval_category", load=load_category_labels
)
