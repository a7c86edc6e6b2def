"""DENSE's declaration: its job, the uncertain-share leaderboard column, its three agreement
sources, its page link and topic summary."""

from crux_app.method_config import Declaration, MethodConfig

DEMO_K = 3
PAGE = "dense"  # its collection and topic pages (crux_app.jobs.feeding)


def describe(params) -> str:  # noqa: ANN001 (a job's params)
    """ "run bm25, top-3" (", no refinement" / ", no chunking" when switched off)."""
    text = f"run {params.get('run') or params['run_id']}, top-{params['k']}"
    off = [name for name in ("refine", "chunking") if params.get(name) is False]
    return text + "".join(f", no {'refinement' if n == 'refine' else n}" for n in off)


def _demo(run, first_topic):  # noqa: ANN001, ANN202 (a catalog DemoJob)
    from evaluation.dense.job import DenseJobParams

    return DenseJobParams(run_id=run.pk, k=DEMO_K).as_params(run), None


class DenseConfig(MethodConfig):
    name = "evaluation.dense"
    label = "dense"
    verbose_name = "DENSE uncertainty"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
        from crux_app.page_links import PageLink
        from evaluation.dense.agreement_sources import SOURCES
        from evaluation.dense.api import api_endpoints
        from evaluation.dense.forms import DenseJobForm
        from evaluation.dense.job import KIND
        from evaluation.dense.job_estimate import estimate_dense
        from evaluation.dense.leaderboard_columns import COLUMN
        from evaluation.dense.topic_summary import SUMMARY

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="DENSE",
                    queue="gpu",
                    description=(
                        "DENSE uncertainty of each question under a run's top-k: rephrased "
                        "chunks, greedy answers, the entailment graph, DSE, chunk diagnosis and "
                        "refinement."
                    ),
                    demo=_demo,
                    results_url=collection_page("dense-collection", "dense-topic"),
                    results_label="DENSE page",
                    feeds=(PAGE, LEADERBOARD, AGREEMENT),
                    unit="questions",
                    describe=describe,
                    estimate_work=estimate_dense,
                ),
            ),
            # The API starts this method's jobs with the page's form (its parameters' bounds).
            job_forms=(JobForm(KIND, DenseJobForm),),
            page_links=(
                PageLink("dense-collection", "DENSE uncertainty", "dense-collection", "collection"),
            ),
            topic_summary=SUMMARY,
            leaderboard_columns=(COLUMN,),
            agreement_sources=SOURCES,
            api_endpoints=api_endpoints(),
        )
