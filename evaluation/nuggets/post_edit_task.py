"""The ``nugget_post_editing`` annotation task type: an annotator post-edits one topic's nugget
list (edit, merge, split, add, delete, re-label), with the topic's query and its top passages
beside it. Declared by the nuggets app (``NuggetsConfig.declare``); the answers are
``post_edit_answers``', the editor is this app's ``static/js/nugget_editor.js``,
and ``adopt_nugget_edits`` writes an annotator's lists back into the collection's nuggets.

An item's payload is a snapshot::

    {"topic": external id, "query": the topic's request,
     "nuggets": [{"position", "text", "importance"}, ...],
     "passages": [{"docid", "text"}, ...]}
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from annotation.task_types.attention_checks import INTRO
from annotation.task_types.registry import AttentionCheck, ItemSpec, TaskType, WorkspaceKeys
from crux_app.models import Collection, Topic
from evaluation.nuggets import post_edit_answers as answers
from evaluation.nuggets.job import top_passages
from evaluation.nuggets.method.scores import OKAY, VITAL
from evaluation.nuggets.models import Nugget

KEY = "nugget_post_editing"
CONTEXT_PASSAGES = 3
PASSAGE_CHARS = 2000
# The editor's keys (listed in full on the page); workspace.js keeps Enter, s, u, p and g.
ANSWER_KEYS = "e v o m x a d z"
# workspace.js sends the answer only while the editor's "list_ready" box is checked.
KEYS = WorkspaceKeys(
    answer_field="list_ready",
    missing="Finish the nugget you are typing first (Enter; Esc cancels), and keep at least one.",
)


def topics_with_nuggets(collection: Collection) -> list[int]:
    """The collection's topics that have nuggets, by topic id."""
    return list(
        Topic.objects.filter(collection=collection, nuggets__isnull=False)
        .order_by("pk")
        .values_list("pk", flat=True)
        .distinct()
    )


def post_edit_specs(topic_ids: Sequence[int]) -> list[ItemSpec]:
    """One item per topic: its nuggets, query and top passages, as they are now."""
    topics = Topic.objects.in_bulk(list(topic_ids))
    lists: dict[int, list[dict[str, Any]]] = {pk: [] for pk in topic_ids}
    rows = Nugget.objects.filter(topic_id__in=list(topic_ids)).order_by("topic_id", "position")
    for topic_id, position, text, importance in rows.values_list(
        "topic_id", "position", "text", "importance"
    ):
        lists[topic_id].append({"position": position, "text": text, "importance": importance})
    specs = []
    for pk in topic_ids:
        topic = topics[pk]
        passages = [
            {"docid": p.external_id, "text": p.text[:PASSAGE_CHARS]}
            for p in top_passages(topic, CONTEXT_PASSAGES)
        ]
        payload = {
            "topic": topic.external_id,
            "query": topic.request,
            "nuggets": lists[pk],
            "passages": passages,
        }
        specs.append(ItemSpec(KEY, payload, topic_id=pk))
    return specs


KEEP = "Attention check: keep this nugget exactly as it is."


def post_edit_check(rng: random.Random, n: int) -> AttentionCheck:
    """Three nuggets whose texts say what to do: keep two, and delete or re-label the third."""
    delete = rng.random() < 0.5
    target = (
        ("Attention check: delete this nugget.", OKAY)
        if delete
        else ("Attention check: mark this nugget okay.", VITAL)
    )
    at = rng.randrange(3)
    nuggets = [(KEEP, VITAL), (KEEP, OKAY)]
    nuggets.insert(at, target)
    expected = list(nuggets)
    if delete:
        del expected[at]
    else:
        expected[at] = (target[0], OKAY)
    payload = {
        "topic": f"attention-{n}",
        "query": "Attention check",
        "nuggets": [
            {"position": i, "text": text, "importance": importance}
            for i, (text, importance) in enumerate(nuggets)
        ],
        "passages": [
            {
                "docid": f"attention-{n}",
                "text": f"{INTRO} Do what each nugget of the list says, then submit.",
            }
        ],
    }
    return AttentionCheck(payload, {"nuggets": answers.as_objects(expected), "history": []})


def _item_label(payload: Mapping[str, Any]) -> str:
    return f"{payload.get('topic')} · {len(payload.get('nuggets', []))} nuggets"


NUGGET_POST_EDITING = TaskType(
    key=KEY,
    label="Nugget post-editing (edit, merge, split, add, delete, re-label a topic's nuggets)",
    template="evaluation/nuggets/tasks/nugget_post_editing.html",
    answer_keys=ANSWER_KEYS,
    parse_answer=answers.parse_post_edit,
    answer_to_draft=answers.post_edit_draft,
    parse_gold=answers.parse_post_edit_gold,
    score=answers.post_edit_score,
    summary=answers.post_edit_summary,
    attention_check=post_edit_check,
    eligible_keys=topics_with_nuggets,
    item_specs=post_edit_specs,
    needs="topics with nuggets (import a nuggetizer file or run nugget creation)",
    selects_outputs=False,
    export_rows=answers.post_edit_rows,
    export_columns=answers.EXPORT_COLUMNS,
    item_label=_item_label,
    keys=KEYS,
)
