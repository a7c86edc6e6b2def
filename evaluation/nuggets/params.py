"""The parameters of the "where lost" view, declared once: its page form and the
``nugget_losses`` command's options are made from this declaration."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from crux_app.parameters import JobParameters, param
from crux_app.read_parameters import same_as


@dataclass(frozen=True)
class LossParams(JobParameters):
    command: ClassVar[str | None] = "nugget_losses"
    # The read side's declared k and tau (crux_app.read_parameters), worded for this view.
    k: int = same_as(
        "k", help="how deep in the run's ranking a supporting passage counts as retrieved"
    )
    tau: float = same_as(
        "tau",
        label="Threshold tau",
        help="the lowest nugget-passage rating (0-5) that counts as support",
    )


TASKS = (
    ("create", "create nuggets"),
    ("assign", "assign nuggets to answers"),
    ("support", "grade sentence-citation support"),
)


@dataclass(frozen=True)
class NuggetJobParams(JobParameters):
    command: ClassVar[str | None] = "nuggets"  # its --compute runs the job in-process
    task: str = param("assign", choices=TASKS, label="Task")
    grades: int = param(
        3, minimum=2, maximum=3, label="Grades", help="assignment: 3 (with partial) or 2"
    )
    distribution: bool = param(
        False,
        label="Distribution mode",
        help="read the label digits' log-probabilities (backends that expose them)",
    )
    passages: int = param(
        20, minimum=1, maximum=100, label="Passages per topic", help="creation: top judged"
    )
    window: int = param(
        5, minimum=1, maximum=20, label="Passages per step", help="creation: per rewrite"
    )
    max_items: int | None = param(
        None,
        minimum=1,
        maximum=100000,
        label="At most",
        help="topics, answers or sentences (empty: all)",
    )
    batch_size: int = param(8, minimum=1, maximum=64, form=False)
