"""What LLM-retEval adds to the shared registries: its job kind, the LLM-retEval@k leaderboard
column, the failure-category agreement source and its page link (called from
``RetevalConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, collection_page, register_kind
from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
from crux_app.page_links import PageLink, register_link
from crux_app.topic_summaries import register_topic_summary
from evaluation.reteval.agreement_source import register_failure_category_source
from evaluation.reteval.job import KIND, RetEvalJobParams
from evaluation.reteval.job_estimate import estimate_reteval
from evaluation.reteval.leaderboard_column import register_reteval_column
from evaluation.reteval.topic_summary import SUMMARY as TOPIC_SUMMARY

DEMO_QUESTIONS = 3
DEMO_KS = (1, 3)
PAGE = "reteval"  # its collection and question pages (crux_app.jobs.feeding)


def describe(params) -> str:
    """ "run bm25, k = 1, 3" (", first 3 questions" when the job is capped)."""
    ks = ", ".join(str(k) for k in params["ks"])
    text = f"run {params.get('run') or params['run_id']}, k = {ks}"
    limit = params.get("max_questions")
    return text + (f", first {limit} questions" if limit else "")


def _demo(run, first_topic):
    params = RetEvalJobParams(run_id=run.pk, ks=DEMO_KS, max_questions=DEMO_QUESTIONS)
    return params.as_params(run), None


def register() -> None:
    register_api()
    register_kind(
        JobKind(
            name=KIND,
            label="LLM-retEval",
            task_name="evaluation.reteval.tasks.gpu_reteval",
            description=(
                "RAG answers from a run's top-k and semi-gold answers from the gold passages, "
                "compared by the CompareGPT judge (LLM-retEval@k)."
            ),
            demo=_demo,
            # First: its RAG and semi-gold answers are then among the answers SCAAR analyses.
            demo_order=1,
            results_url=collection_page("reteval-collection", "reteval-topic"),
            results_label="LLM-retEval page",
            feeds=(PAGE, LEADERBOARD, AGREEMENT),
            unit="questions",
            estimate_work=estimate_reteval,
            describe=describe,
        )
    )
    register_link(
        PageLink("reteval-collection", "LLM-retEval", "reteval-collection", "collection", 70)
    )
    register_reteval_column()
    register_failure_category_source()
    register_topic_summary(TOPIC_SUMMARY)


def register_api() -> None:
    """The API starts this method's jobs with the page's form (its parameters' bounds)."""
    from api.registry import register_job_form
    from evaluation.reteval.forms import RetEvalJobForm

    register_job_form(KIND, RetEvalJobForm)
