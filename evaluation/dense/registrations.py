"""What DENSE adds to the shared registries: its job kind, the uncertain-share leaderboard
column, its three agreement sources and its page link (called from ``DenseConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, collection_page, register_kind
from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
from crux_app.page_links import PageLink, register_link
from crux_app.topic_summaries import register_topic_summary
from evaluation.dense.agreement_sources import register_sources
from evaluation.dense.job import KIND, DenseJobParams
from evaluation.dense.job_estimate import estimate_dense
from evaluation.dense.leaderboard_column import COLUMN
from evaluation.dense.topic_summary import SUMMARY as TOPIC_SUMMARY
from evaluation.leaderboard.columns import register_column

DEMO_K = 3
PAGE = "dense"  # its collection and topic pages (crux_app.jobs.feeding)


def describe(params) -> str:
    """ "run bm25, top-3" (", no refinement" / ", no chunking" when switched off)."""
    text = f"run {params.get('run') or params['run_id']}, top-{params['k']}"
    off = [name for name in ("refine", "chunking") if params.get(name) is False]
    return text + "".join(f", no {'refinement' if n == 'refine' else n}" for n in off)


def _demo(run, first_topic):
    return DenseJobParams(run_id=run.pk, k=DEMO_K).as_params(run), None


def register() -> None:
    register_api()
    register_kind(
        JobKind(
            name=KIND,
            label="DENSE",
            task_name="evaluation.dense.tasks.gpu_dense",
            description=(
                "DENSE uncertainty of each question under a run's top-k: rephrased chunks, "
                "greedy answers, the entailment graph, DSE, chunk diagnosis and refinement."
            ),
            demo=_demo,
            demo_order=2,
            results_url=collection_page("dense-collection", "dense-topic"),
            results_label="DENSE page",
            feeds=(PAGE, LEADERBOARD, AGREEMENT),
            unit="questions",
            describe=describe,
            estimate_work=estimate_dense,
        )
    )
    register_link(
        PageLink("dense-collection", "DENSE uncertainty", "dense-collection", "collection", 60)
    )
    register_column(COLUMN)
    register_sources()
    register_topic_summary(TOPIC_SUMMARY)


def register_api() -> None:
    """The API starts this method's jobs with the page's form (its parameters' bounds)."""
    from api.registry import register_job_form
    from evaluation.dense.forms import DenseJobForm

    register_job_form(KIND, DenseJobForm)
