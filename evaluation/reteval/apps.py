"""LLM-retEval's declaration: its job, the LLM-retEval@k leaderboard column, the
failure-category agreement source and review labels, its page link and topic summary."""

from crux_app.method_config import Declaration, MethodConfig

DEMO_QUESTIONS = 3
DEMO_KS = (1, 3)
PAGE = "reteval"  # its collection and question pages (crux_app.jobs.feeding)


def describe(params) -> str:  # noqa: ANN001 (a job's params)
    """ "run bm25, k = 1, 3" (", first 3 questions" when the job is capped)."""
    ks = ", ".join(str(k) for k in params["ks"])
    text = f"run {params.get('run') or params['run_id']}, k = {ks}"
    limit = params.get("max_questions")
    return text + (f", first {limit} questions" if limit else "")


def _demo(run, first_topic):  # noqa: ANN001, ANN202 (a catalog DemoJob)
    from evaluation.reteval.job import RetEvalJobParams

    params = RetEvalJobParams(run_id=run.pk, ks=DEMO_KS, max_questions=DEMO_QUESTIONS)
    return params.as_params(run), None


class RetevalConfig(MethodConfig):
    name = "evaluation.reteval"
    label = "reteval"
    verbose_name = "LLM-retEval retriever evaluation"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
        from crux_app.page_links import PageLink
        from evaluation.reteval.agreement_sources import SOURCE
        from evaluation.reteval.api import api_endpoints
        from evaluation.reteval.forms import RetEvalJobForm
        from evaluation.reteval.job import KIND
        from evaluation.reteval.job_estimate import estimate_reteval
        from evaluation.reteval.leaderboard_columns import COLUMN
        from evaluation.reteval.review_label_sources import SOURCE as REVIEW_SOURCE
        from evaluation.reteval.topic_summary import SUMMARY

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="LLM-retEval",
                    queue="gpu",
                    # Needs nothing: the demo queues it first, so its RAG and semi-gold
                    # answers are among the answers SCAAR analyses.
                    description=(
                        "RAG answers from a run's top-k and semi-gold answers from the gold "
                        "passages, compared by the CompareGPT judge (LLM-retEval@k)."
                    ),
                    demo=_demo,
                    results_url=collection_page("reteval-collection", "reteval-topic"),
                    results_label="LLM-retEval page",
                    feeds=(PAGE, LEADERBOARD, AGREEMENT),
                    unit="questions",
                    estimate_work=estimate_reteval,
                    describe=describe,
                ),
            ),
            # The API starts this method's jobs with the page's form (its parameters' bounds).
            job_forms=(JobForm(KIND, RetEvalJobForm),),
            page_links=(
                PageLink("reteval-collection", "LLM-retEval", "reteval-collection", "collection"),
            ),
            topic_summary=SUMMARY,
            leaderboard_columns=(COLUMN,),
            agreement_sources=(SOURCE,),
            review_label_sources=(REVIEW_SOURCE,),
            api_endpoints=api_endpoints(),
        )
