"""One kind of task type: the shared ``annotation`` code names no built-in task type.

The four built-in task types are declared through the registry's hooks
(``annotation/builtin_task_types.py``) like a method's own (nugget assignment), so the review,
quality, aggregation, selection and export code asks the entry instead of branching on a name.
Checked with ``ast``: a module may not import or read a built-in's name constant
(``annotation.task_types.names.PASSAGE_RATING``...) nor spell a built-in's key as a string.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from annotation.builtin_task_types import BUILTIN_TASK_TYPES
from annotation.task_types import names
from annotation.task_types.registry import TASK_TYPE_REGISTRY

ROOT = Path(__file__).resolve().parents[2]
ANNOTATION = ROOT / "annotation"
KEYS = frozenset(entry.key for entry in BUILTIN_TASK_TYPES)
# The constants of ``annotation/task_types/names.py`` whose value is a built-in's key (but the
# default choice of forms and commands, ``DEFAULT_TASK_TYPE``: a choice, never a branch).
CONSTANTS = frozenset(
    name
    for name, value in vars(names).items()
    if name.isupper() and isinstance(value, str) and value in KEYS
) - {"DEFAULT_TASK_TYPE"}
# Where a built-in is named: its declaration and the module of its names.
DECLARATION = {"builtin_task_types.py", "task_types/names.py"}
# Doors whose contract is one built-in task, not shared code: the API's campaign from
# (topic, sub-question, passage) items is a passage-rating campaign; the demo campaign command
# makes the demo's rating campaign; the assignment manager's task 3 and 4 label query sets are
# what the SePer and LLM-retEval methods read.
ONE_TASK_DOORS = {
    "campaigns/api.py",
    "management/commands/demo_campaign.py",
    "models/assignment.py",
}


def built_in_names(source: str) -> list[str]:
    """Each place (``line: name``) where ``source`` names a built-in task type."""
    found = []
    for node in ast.walk(ast.parse(source)):
        name = None
        if isinstance(node, ast.Name) and node.id in CONSTANTS:
            name = node.id
        elif isinstance(node, ast.alias) and node.name in CONSTANTS:
            name = node.name
        elif isinstance(node, ast.Attribute) and node.attr in CONSTANTS:
            if isinstance(node.value, ast.Name) and node.value.id in {"task_types", "names"}:
                name = node.attr
        elif isinstance(node, ast.Constant) and node.value in KEYS:
            name = repr(node.value)
        if name is not None:
            found.append(f"{getattr(node, 'lineno', '?')}: {name}")
    return found


def shared_modules() -> list[Path]:
    allowed = DECLARATION | ONE_TASK_DOORS
    return [
        path
        for path in sorted(ANNOTATION.rglob("*.py"))
        if "migrations" not in path.parts and path.relative_to(ANNOTATION).as_posix() not in allowed
    ]


def test_the_constants_are_the_built_in_keys():
    assert {getattr(names, name) for name in CONSTANTS} == KEYS
    assert len(KEYS) == 4 and set(TASK_TYPE_REGISTRY) >= KEYS


@pytest.mark.parametrize(
    "source",
    [
        "from .task_types import PASSAGE_RATING\n",
        "if kind == REPORT_COVERAGE:\n    pass\n",
        "x = task_types.FAILURE_CATEGORY\n",
        "if kind == 'answer_equivalence':\n    pass\n",
    ],
)
def test_the_check_finds_a_named_built_in(source):
    assert built_in_names(source)


def test_the_check_lets_hooks_and_judgment_tasks_pass():
    source = "entry = TASK_TYPE_REGISTRY[kind]\nJudgment.Task.PASSAGE_RATING\n"
    assert built_in_names(source) == []


def test_no_shared_annotation_module_names_a_built_in_task_type():
    named = {
        path.relative_to(ROOT).as_posix(): places
        for path in shared_modules()
        if (places := built_in_names(path.read_text()))
    }
    assert named == {}, "declare it through a TaskType hook instead"


REVIEWED = [e for e in TASK_TYPE_REGISTRY.values() if e in BUILTIN_TASK_TYPES or e.review_labels]


@pytest.mark.parametrize("entry", REVIEWED, ids=lambda e: e.key)
def test_every_reviewed_task_type_declares_its_review_vocabulary(entry):
    assert entry.review_labels, "the labels a reviewer may give, in words"
    assert entry.review_unit or entry.review_units, "an answer as (label, review item key)"
    assert entry.labels_hint()
    for label, words in entry.review_labels.items():
        assert entry.typed_label(f" {str(label).lower()} ") == label
        assert entry.label_words(label) == words
