"""The annotation task types, as one registry: what the rest of ``annotation`` asks of a task.

A task type is one ``TaskType`` entry: its answer parsing and gold comparison, its attention
checks, how a campaign selects its items, its export columns, its workspace template and keys.
The campaign, workspace, queue, export and quality code look the entry up by key instead of
branching on task names, so a new human task is one entry (and its template), declared by the
app that needs it (``crux_app.method_config.Declaration.annotation_task_types``) or by
``annotation`` itself (the four built-in types, ``annotation.builtin_task_types``).

Plain Python here: the entries name functions of the modules that hold them; this module
imports none of them (they import it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from crux_app.registry import Registry

if TYPE_CHECKING:
    from crux_app.models import Collection, Judge

# ``annotation.models``' Assignment and CampaignItem are named ``Any`` here: the models import
# the task-type names, and a type-only import back would close an import circle.
Assignment = Any
CampaignItem = Any
# (payload, answer) -> (label, review item key), or None (``TaskType.review_unit``).
ReviewUnit = Callable[[Mapping[str, Any], Mapping[str, Any]], "tuple[Any, str] | None"]
# (payload, answer) -> {unit: (label, review item key)} (``TaskType.review_units``).
ReviewUnits = Callable[[Mapping[str, Any], Mapping[str, Any]], "dict[Hashable, tuple[Any, str]]"]


@dataclass
class ItemSpec:
    """A campaign item to create: its task type, the payload it shows, the rows it is about."""

    kind: str
    payload: dict[str, Any]
    topic_id: int | None = None
    subquestion_id: int | None = None
    passage_id: int | None = None
    output_id: int | None = None
    reference_output_id: int | None = None


@dataclass(frozen=True)
class AttentionCheck:
    """A synthetic item of a task's own shape whose text says what to answer, and that
    answer."""

    payload: dict[str, Any]
    expected: dict[str, Any]


def _one_row(answer: Mapping[str, Any], payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    # The answer's own fields; ``exports`` keeps those that are label columns.
    return [dict(answer)]


def _output_label(payload: Mapping[str, Any]) -> str:
    return f"{payload.get('topic')} · {payload.get('output_id', '')}"


def _no_judgments(assignment: Assignment) -> int:
    return 0


def _no_item_data(payload: Mapping[str, Any]) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class WorkspaceKeys:
    """How the workspace's keys answer an item (``static/js/workspace.js`` reads it from the
    item's data attributes, so a declared task type needs no script of its own).

    ``answer_field`` is the answer field a key sets (with ``rows``: the prefix of each row's field,
    followed by the row's ``data-position``); ``values`` maps a key to the value it chooses
    (empty: the key is the ``data-key`` of one of the field's choices on the page);
    ``missing`` is the hint shown when Enter comes before an answer (``{keys}``: the first
    and last of the choices' keys). ``rows``: the item has several rows (``.ws-q``) answered
    one at a time, the arrows moving between them (``row_name`` names a row in the key
    hint). ``spans``: j / k / m mark a supporting span in the item's text
    (``static/js/workspace_spans.js``).
    """

    answer_field: str = ""
    values: Mapping[str, str] = field(default_factory=dict)
    missing: str = "Answer first."
    rows: bool = False
    row_name: str = "row"
    spans: bool = False


@dataclass(frozen=True)
class TaskType:
    """One annotation task type.

    Answers are stored as JSON on the assignment; ``parse_answer`` makes one from the workspace
    form's fields and the item's payload, ``answer_to_draft`` is its inverse (an undone answer
    becomes the item's draft), ``parse_gold`` reads a gold answer written as one cell,
    ``score`` says how far an answer matches a gold one (in [0, 1], a rating within
    ``tolerance`` points), ``summary`` writes an answer short for tables.

    ``eligible_keys`` lists a collection's items as keys (reading no texts), ``item_specs``
    turns keys into items with their payloads; ``selects_outputs`` when the keys are generated
    outputs (a campaign may then be limited to chosen outputs); ``needs`` says what a
    collection must hold to give items (the message of an empty selection).
    ``attention_check`` builds the ``n``-th synthetic check. ``export_rows`` splits an answer
    (of an item with this payload) into the CSV export's row fragments, whose fields are the
    shared label columns and ``export_columns`` (added after them); ``platform_format``
    names the CRUX platform file its labels export to, if any. ``mirror_judgments`` writes an
    assignment's answer as ``crux_app`` judgments (returns how many), ``mirrored_judgments``
    finds them again for an undo (the judge's judgments of the item, and the item fields that
    pick the same pair in other campaigns); ``judge_answers`` reads
    a judge's labels of items as answers (item pk -> answer), for gold items from a judge.
    ``item_label`` names an item (by its payload) in researcher tables (default: topic and
    output). ``template`` is the workspace partial showing an item and its answer fields;
    ``answer_keys`` the keys it answers with (as the key hint shows them), ``keys`` how the
    workspace's keys answer (``WorkspaceKeys``), ``item_data`` the data attributes an item
    carries from its payload (e.g. passage rating's change cue: ``context`` and ``passage``).
    ``write_platform`` writes one annotator's submitted assignments as ``platform_format``
    lines (returns how many). ``check_chosen_keys`` checks and normalises the keys of a
    campaign made from chosen items (``campaign_from_items``; default: keys among
    ``eligible_keys``). ``review_labels`` are the labels a reviewer may give an item of the
    task, with their words (label -> words; none: the built-in review vocabulary);
    ``review_unit`` an answer (of an item with this payload) as (label, review item key), for
    the annotator quality page's agreement with other annotators and with reviews (None: the
    answer holds no label); ``review_units`` the same for an answer of several units (one per
    sub-question: {unit: (label, key)}), in place of ``review_unit``. ``review_labels``' keys
    are the labels as stored (an int rating, a letter); ``review_hint`` the labels a reviewer
    may type, as the review workspace shows them and a refused label's message names them
    (default: the labels, joined). ``answer_label`` reads an answer's one label for the review
    queue (tasks whose labels live in campaign answers only). ``judgment_item`` is ``passage``
    or ``output`` for a task whose labels are ``crux_app`` judgments of (sub-question, that
    item): the review queue reads them, merged and aggregated labels and review decisions are
    written there. ``machine_items`` lists the collection's rows as review items for the
    machine judges' labels no person gave (``annotation/labels/machine_items.py``).
    ``crux_pairs``: the CRUX protocol (a judge's ratings of passage pairs) may pick the items.
    """

    key: str
    label: str
    template: str
    answer_keys: str
    parse_answer: Callable[[Mapping[str, str], Mapping[str, Any]], dict]
    answer_to_draft: Callable[[Mapping[str, Any]], dict[str, str]]
    parse_gold: Callable[[str, Mapping[str, Any]], dict]
    score: Callable[[Mapping[str, Any], Mapping[str, Any], int], float]
    summary: Callable[[Mapping[str, Any]], str]
    attention_check: Callable[[random.Random, int], AttentionCheck]
    eligible_keys: Callable[[Collection], list[Any]]
    item_specs: Callable[[Sequence[Any]], list[ItemSpec]]
    needs: str
    selects_outputs: bool = True
    export_rows: Callable[[Mapping[str, Any], Mapping[str, Any]], list[dict[str, Any]]] = _one_row
    export_columns: tuple[str, ...] = ()
    platform_format: str | None = None
    mirror_judgments: Callable[[Assignment], int] = _no_judgments
    judge_answers: Callable[[Sequence[CampaignItem], Judge], dict[int, dict]] | None = None
    item_label: Callable[[Mapping[str, Any]], str] = _output_label
    mirrored_judgments: Callable[[CampaignItem, Judge], tuple[Any, dict] | None] | None = None
    keys: WorkspaceKeys = WorkspaceKeys()
    item_data: Callable[[Mapping[str, Any]], dict[str, str]] = _no_item_data
    write_platform: Callable[[Sequence[Assignment], TextIO], int] | None = None
    check_chosen_keys: Callable[[Collection, Sequence[Any]], list[Any]] | None = None
    review_labels: Mapping[Any, str] = field(default_factory=dict)
    review_unit: ReviewUnit | None = None
    review_units: ReviewUnits | None = None
    review_hint: str = ""
    answer_label: Callable[[Mapping[str, Any]], Any] | None = None
    judgment_item: str | None = None
    machine_items: Callable[[Collection], Any] | None = None
    crux_pairs: bool = False

    def answer_units(
        self, payload: Mapping[str, Any], answer: Mapping[str, Any]
    ) -> dict[Hashable, tuple[Any, str]]:
        """An answer as (label, review item key) per unit (``review_units``, ``review_unit``)."""
        if self.review_units is not None:
            return self.review_units(payload, answer)
        unit = self.review_unit(payload, answer) if self.review_unit else None
        return {} if unit is None else {"": unit}

    def label_words(self, label: Any) -> str:
        """A label in words, as the reviewer reads it (``review_labels``; else the label)."""
        words = {str(k): v for k, v in self.review_labels.items()}
        return words.get(str(label), str(label))

    def typed_label(self, text: str) -> Any:
        """The declared label a reviewer typed (any case), or None."""
        labels = {str(k).upper(): k for k in self.review_labels}
        return labels.get(text.strip().upper())

    def labels_hint(self) -> str:
        """The labels a reviewer may type, in the words shown to reviewers."""
        return self.review_hint or " / ".join(str(k) for k in self.review_labels)


TASK_TYPE_REGISTRY: Registry[TaskType] = Registry("annotation task types", (TaskType,))


def task_type(key: str) -> TaskType:
    """The registered task type ``key`` (``KeyError`` when none is)."""
    return TASK_TYPE_REGISTRY[key]


def judgment_item(key: str) -> str | None:
    """``passage`` or ``output`` when task ``key``'s labels are judgments (None: they are not,
    or no such task is registered)."""
    entry = TASK_TYPE_REGISTRY.get(key)
    return entry.judgment_item if entry is not None else None


def judgment_tasks() -> list[str]:
    """The registered task types whose labels are ``crux_app`` judgments."""
    return [key for key, entry in TASK_TYPE_REGISTRY.items() if entry.judgment_item]


def task_type_choices() -> list[tuple[str, str]]:
    """(key, label) of every registered task type, in declaration order: the choices of the
    campaign's ``task_type`` (a callable, so a declared type is valid once registered)."""
    return [(entry.key, entry.label) for entry in TASK_TYPE_REGISTRY.values()]


def item_kind_choices() -> list[tuple[str, str]]:
    """The choices of a campaign item's ``kind``: the task types and the attention check."""
    return [*task_type_choices(), ("attention", "Attention check")]
