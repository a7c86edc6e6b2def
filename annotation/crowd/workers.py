"""Each annotator of a campaign as a crowd model sees them: estimated skill and confusion
matrix (``annotation/crowd/aggregation.py``) fitted on the campaign's labels, optionally with
machine judges' labels of the same items as more workers (their reliability learned from the
people), and each model's accuracy against the adjudicated reference of review campaigns.

The annotator quality page and its CSV put these beside gold accuracy, speed and agreement
(``annotation/quality/annotators.py``: its ``extra`` columns)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.crowd.aggregation import METHODS, AggregationError, WorkerModel, aggregate
from annotation.labels.collection import collection_labels
from annotation.models import Assignment, Campaign
from annotation.quality.agreement import Tally
from annotation.quality.annotators import answer_units, campaign_reference

# The columns the page and the CSV add, and their headers.
MODEL_COLUMNS = ("model_skill", "model_confusion")
Units = dict[str, dict[str, Any]]  # review item key -> worker -> label


@dataclass(frozen=True)
class MethodAccuracy:
    method: str
    implementation: str
    vs_reference: Tally  # items with a reference, aggregated label right


@dataclass(frozen=True)
class WorkerModels:
    method: str
    people: dict[str, WorkerModel]  # username -> model
    machines: dict[str, WorkerModel]  # machine judges that took part
    error: str = ""
    methods: list[MethodAccuracy] = field(default_factory=list)

    def extra(self) -> dict[str, dict[str, Any]]:
        """username -> the added columns' values (None where the model saw no label)."""
        return {
            name: {"model_skill": round(m.skill, 4), "model_confusion": confusion_text(m)}
            for name, m in self.people.items()
        }


def confusion_text(model: WorkerModel) -> str:
    """A confusion matrix in one cell: ``true: given p, ...; ...`` (rows with mass only)."""
    rows = []
    for true, given in model.confusion.items():
        if any(given.values()):
            cells = ", ".join(f"{g} {p:.2f}" for g, p in given.items() if p >= 0.005)
            rows.append(f"{true}: {cells}")
    return "; ".join(rows)


def campaign_units(campaign: Campaign) -> Units:
    """The campaign's submitted labels (controls left out), by review item key and username."""
    rows = (
        Assignment.objects.submitted()
        .filter(campaign=campaign, item__is_control=False)
        .order_by("submitted_at", "id")
        .values_list("annotator__username", "item__kind", "item__payload", "answer")
    )
    units: Units = defaultdict(dict)
    for username, kind, payload, answer in rows:
        for label, key in answer_units(kind, payload or {}, answer or {}).values():
            units[key][username] = label
    return units


def machine_choices(campaign: Campaign) -> list[str]:
    """Machine judges with labels of the campaign's task in its collection, sorted."""
    return sorted(collection_labels(campaign.collection, campaign.task_type).machines)


def _with_machines(campaign: Campaign, units: Units, machines: Sequence[str]) -> Units:
    if not machines:
        return units
    found = collection_labels(campaign.collection, campaign.task_type)
    out = {key: dict(labels) for key, labels in units.items()}
    for key in units:
        for judge in machines:
            label = found.labels.get(key, {}).get(judge)
            if label is not None:
                out[key][judge] = label
    return out


def worker_models(
    campaign: Campaign, method: str, machines: Sequence[str] = (), compare: bool = False
) -> WorkerModels:
    """Fit ``method`` on the campaign's labels (with ``machines`` as more workers); with
    ``compare``, every method's accuracy against the adjudicated reference, where one exists."""
    people = campaign_units(campaign)
    units = _with_machines(campaign, people, machines)
    usernames = {w for labels in people.values() for w in labels}
    try:
        fitted = aggregate(units, method) if units else None
    except AggregationError as error:
        return WorkerModels(method, {}, {}, error=str(error))
    workers: dict[Hashable, WorkerModel] = fitted.workers if fitted else {}
    methods = reference_accuracy(campaign, units) if compare and units else []
    return WorkerModels(
        method,
        people={str(w): m for w, m in workers.items() if w in usernames},
        machines={str(w): m for w, m in workers.items() if w not in usernames},
        methods=methods,
    )


def reference_accuracy(campaign: Campaign, units: Units) -> list[MethodAccuracy]:
    """Each method's aggregated labels against the adjudicated reference (none: no
    reference)."""
    reference = campaign_reference(campaign)
    if not any(key in reference for key in units):
        return []
    out = []
    for method, (_, implementation) in METHODS.items():
        labels = aggregate(units, method).labels
        hits = [labels[k] == reference[k] for k in units if k in reference and k in labels]
        out.append(MethodAccuracy(method, implementation, Tally(sum(hits), len(hits))))
    return out
