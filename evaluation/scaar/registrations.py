"""What SCAAR adds to the shared registries: its job kind and its page link (called from
``ScaarConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, collection_page, register_kind
from crux_app.page_links import PageLink, register_link
from crux_app.topic_summaries import register_topic_summary
from evaluation.scaar.job import KIND, ScaarJobParams
from evaluation.scaar.job_estimate import estimate_scaar
from evaluation.scaar.topic_summary import SUMMARY as TOPIC_SUMMARY


def _demo(run, first_topic):
    return ScaarJobParams().as_params(), None


PAGE = "scaar"  # its collection page (crux_app.jobs.feeding)


def describe(params) -> str:
    """ "every generated answer, k = 3" or "system bm25-rag, k = 3"."""
    system = params.get("system")
    return f"{f'system {system}' if system else 'every generated answer'}, k = {params['k']}"


def register() -> None:
    register_api()
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
            results_url=collection_page("scaar-collection"),
            results_label="SCAAR word contributions",
            feeds=(PAGE,),
            unit="answers",
            estimate_work=estimate_scaar,
            describe=describe,
        )
    )
    register_link(
        PageLink(
            "scaar-collection", "SCAAR word contributions", "scaar-collection", "collection", 80
        )
    )
    register_topic_summary(TOPIC_SUMMARY)


def register_api() -> None:
    """The API starts this method's jobs with the page's form (its parameters' bounds)."""
    from api.registry import register_job_form
    from evaluation.scaar.forms import ScaarJobForm

    register_job_form(KIND, ScaarJobForm)
