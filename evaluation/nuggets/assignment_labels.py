"""People's nugget assignments as stored labels: a campaign answer of the ``nugget_assignment``
task is mirrored as a ``NuggetAssignment`` of the annotator's human judge (``user:<name>``; in
a post-editing campaign their post-edit judge:
``annotation.workspace.submission.label_judge``), in the submit's transaction, so the nugget
pages, the agreement source and the review queue read it as they read the LLM judge's rows; an
undo removes it again; a judge's rows are read back as answers (gold items from a judge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotation.workspace.submission import label_judge
from crux_app.data_version import bump_topics
from crux_app.models import Judge
from evaluation.nuggets.assignment_task import FIELD
from evaluation.nuggets.method.scores import CREDIT
from evaluation.nuggets.models import Nugget, NuggetAssignment


def _pair(item: Any) -> tuple[int, int] | None:
    """(nugget id, output id) of a campaign item, None for an item that is no such pair."""
    nugget_id = (item.payload or {}).get("nugget_id")
    if not isinstance(nugget_id, int) or item.output_id is None:
        return None
    return nugget_id, item.output_id


def mirror_assignment(assignment: Any) -> int:
    """The answer as the annotator's ``NuggetAssignment`` of (nugget, answer); 0 when the
    nugget is gone since the item was made, or the answer holds no label."""
    item, answer = assignment.item, assignment.answer or {}
    pair = _pair(item)
    label = answer.get(FIELD)
    if pair is None or label not in CREDIT or not Nugget.objects.filter(pk=pair[0]).exists():
        return 0
    NuggetAssignment.objects.update_or_create(
        judge=label_judge(assignment),
        nugget_id=pair[0],
        output_id=pair[1],
        defaults={"assignment": label, "distribution": None, "raw_output": ""},
    )
    bump_topics({item.topic_id})
    return 1


def mirrored_assignments(item: Any, judge: Judge) -> tuple[Any, dict] | None:
    """The judge's assignment mirrored from ``item``, and the item fields of the same
    (nugget, answer) in other campaigns."""
    pair = _pair(item)
    if pair is None:
        return None
    rows = NuggetAssignment.objects.filter(judge=judge, nugget_id=pair[0], output_id=pair[1])
    return rows, {"item__payload__nugget_id": pair[0], "item__output_id": pair[1]}


def judge_answers(items: Sequence[Any], judge: Judge) -> dict[int, dict]:
    """Item pk -> the judge's assignment of the item's (nugget, answer), where it has one."""
    pairs = {item.pk: _pair(item) for item in items}
    wanted = {p for p in pairs.values() if p is not None}
    rows = NuggetAssignment.objects.filter(
        judge=judge,
        nugget_id__in={n for n, _ in wanted},
        output_id__in={o for _, o in wanted},
    ).values_list("nugget_id", "output_id", "assignment")
    labels = {(n, o): label for n, o, label in rows}
    return {pk: {FIELD: labels[pair]} for pk, pair in pairs.items() if pair in labels}
