"""SCAAR's declaration: its job, its page link and topic summary."""

from crux_app.method_config import Declaration, MethodConfig

PAGE = "scaar"  # its collection page (crux_app.jobs.feeding)


def describe(params) -> str:  # noqa: ANN001 (a job's params)
    """ "every generated answer, k = 3" or "system bm25-rag, k = 3"."""
    system = params.get("system")
    return f"{f'system {system}' if system else 'every generated answer'}, k = {params['k']}"


def _demo(run, first_topic):  # noqa: ANN001, ANN202 (a catalog DemoJob)
    from evaluation.scaar.job import ScaarJobParams

    return ScaarJobParams().as_params(), None


class ScaarConfig(MethodConfig):
    name = "evaluation.scaar"
    label = "scaar"
    verbose_name = "SCAAR word contributions"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.page_links import PageLink
        from evaluation.scaar.api import api_endpoints
        from evaluation.scaar.forms import ScaarJobForm
        from evaluation.scaar.job import KIND
        from evaluation.scaar.job_estimate import estimate_scaar
        from evaluation.scaar.topic_summary import SUMMARY

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="SCAAR",
                    queue="gpu",
                    # It analyses generated answers: those of answer generation and
                    # LLM-retEval's RAG answers.
                    needs=("generate_answers", "reteval"),
                    description=(
                        "SCAAR word contributions of generated answers: per-sentence "
                        "thresholds, retrieval triggers and percentile-filtered queries."
                    ),
                    demo=_demo,
                    results_url=collection_page("scaar-collection"),
                    results_label="SCAAR word contributions",
                    feeds=(PAGE,),
                    unit="answers",
                    estimate_work=estimate_scaar,
                    describe=describe,
                ),
            ),
            # The API starts this method's jobs with the page's form (its parameters' bounds).
            job_forms=(JobForm(KIND, ScaarJobForm),),
            page_links=(
                PageLink(
                    "scaar-collection",
                    "SCAAR word contributions",
                    "scaar-collection",
                    "collection",
                    after=("reteval-collection",),  # as its job follows LLM-retEval's
                ),
            ),
            topic_summary=SUMMARY,
            api_endpoints=api_endpoints(),
        )
