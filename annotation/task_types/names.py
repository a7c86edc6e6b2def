"""The names of the four built-in crowd task types, their answer keys and the retrieval-failure
categories.

Plain Python (no Django): the built-in entries (``builtin_task_types``) and the models share
these names; what a task type does is its entry in ``task_type_registry``. Tasks 1 and 2 use
the same identifiers as ``Judgment.Task`` so their labels can be mirrored into judgments
without translation.
"""

from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app import vocabulary

PASSAGE_RATING = "passage_rating"
REPORT_COVERAGE = "report_coverage"
ANSWER_EQUIVALENCE = "answer_equivalence"
FAILURE_CATEGORY = "failure_category"

TASK_LABELS: dict[str, str] = {
    PASSAGE_RATING: "Passage rating (0-5 per sub-question)",
    REPORT_COVERAGE: "Report coverage (answerable yes/no per sub-question)",
    ANSWER_EQUIVALENCE: "Answer equivalence (same meaning as a gold answer?)",
    FAILURE_CATEGORY: "Retrieval failure category (A-F)",
}
TASK_TYPES: tuple[str, ...] = tuple(TASK_LABELS)

# The task a form, command or queue offers first when none is chosen.
DEFAULT_TASK_TYPE = PASSAGE_RATING

# Which tasks' labels are crux_app judgments is each entry's ``TaskType.judgment_item``.

# The rubric levels and LLM-retEval's failure taxonomy (METHODS section 5) are the shared
# vocabulary's; re-exported here under the names the answer parser and attention checks use.
RATINGS = vocabulary.RATINGS
FAILURE_CATEGORIES: dict[str, str] = vocabulary.FAILURE_CATEGORIES  # letter -> description

# Keys the workspace reads; static/js/workspace.js takes the category letters from the page.
ANSWER_KEYS: dict[str, str] = {
    PASSAGE_RATING: vocabulary.key_range(vocabulary.RATINGS),
    REPORT_COVERAGE: "y / n",
    ANSWER_EQUIVALENCE: "y / n",
    FAILURE_CATEGORY: vocabulary.key_range(vocabulary.FAILURE_LETTERS),
}


def task_label(task_type: str) -> str:
    """The registered task type's label (the key itself for an unknown one)."""
    entry = TASK_TYPE_REGISTRY.get(task_type)
    return entry.label if entry is not None else task_type
