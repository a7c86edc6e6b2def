"""What SCAAR adds to the shared registries: its job kind and its page link (called from
``ScaarConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, register_kind
from crux_app.page_links import PageLink, register_link
from evaluation.scaar.job import KIND, ScaarJobParams


def _demo(run, first_topic):
    return ScaarJobParams().as_params(), None


def register() -> None:
    register_kind(
        JobKind(
            name=KIND,
            label="SCAAR",
            task_name="evaluation.scaar.tasks.gpu_scaar",
            description=(
                "SCAAR word contributions of generated answers: per-sentence thresholds, "
                "retrieval triggers and percentile-filtered queries."
            ),
            demo=_demo,
            demo_order=4,  # last: it analyses the answers the other demo jobs generated
        )
    )
    register_link(
        PageLink(
            "scaar-collection", "SCAAR word contributions", "scaar-collection", "collection", 80
        )
    )
