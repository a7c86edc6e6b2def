"""The choices of an aggregation of crowd labels, declared once: the command's options, the
agreement page's form and the API's parsing are made from ``AggregationParams``; the task (the
registered task types) and the judges (a list of names) are each door's own fields, checked by
``check_task``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from annotation.crowd.aggregation import METHODS
from annotation.task_types.registry import TASK_TYPE_REGISTRY
from crux_app.parameters import JobParameters, ParameterError, param

DEFAULT_METHOD = "dawid_skene"
NAME_HELP = "the judge is aggregated:<name> (default: <collection>-<task>-<method>)"


@dataclass(frozen=True)
class AggregationParams(JobParameters):
    command: ClassVar[str | None] = "aggregate_labels"
    method: str = param(
        DEFAULT_METHOD,
        choices=tuple((key, f"{key}: {words}") for key, (words, _) in METHODS.items()),
        help="the crowd model",
    )
    name: str = param("", max_length=80, help=NAME_HELP, blank_default=True, label="Judge name")
    campaign: str = param(
        "",
        max_length=80,
        help="only the labels of this campaign's items and annotators (a slug)",
        blank_default=True,
        form=False,
    )
    seed: int = param(0, minimum=0, maximum=2**31 - 1, help="seed of the randomised models")

    def check(self) -> None:
        if self.name and not all(c.isalnum() or c in "-_." for c in self.name):
            raise ParameterError("name: use letters, digits, '-', '_' or '.'", "name")


def check_task(task: object) -> str:
    """The task type's key, or ParameterError naming ``task`` (a JSON list or object too)."""
    if not isinstance(task, str):  # a list or object cannot even be looked up
        raise ParameterError(f"task: must be a task type's name, got {type(task).__name__}", "task")
    if task not in TASK_TYPE_REGISTRY:
        known = ", ".join(TASK_TYPE_REGISTRY)
        raise ParameterError(f"unknown task {task!r}; choose from {known}", "task")
    return task
