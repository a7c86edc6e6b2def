"""SePer's declaration: its job, the answer-equivalence agreement source and review labels, the
Delta-SePer leaderboard column, its page links and topic summary."""

from crux_app.method_config import Declaration, MethodConfig

DEMO_K = 3
PAGE = "seper"  # its correlations and topic pages (crux_app.jobs.feeding)
ANSWER_EQUIVALENCE_CLASSES = ((1.0, "same meaning"), (0.0, "different meaning"))


def describe(params) -> str:  # noqa: ANN001 (a job's params)
    """ "run bm25, top-3, 5 samples" (no run: the baseline and the gold passages only)."""
    run = params.get("run") or params.get("run_id")
    where = f"run {run}, top-{params['k']}" if run else "no run: baseline and gold passages"
    return f"{where}, {params['n_samples']} samples"


def _demo(run, first_topic):  # noqa: ANN001, ANN202 (a catalog DemoJob)
    from evaluation.seper.job import SeperJobParams

    # The slowest method on a CPU: the demo scores one question.
    params = SeperJobParams(run_id=run.pk, k=DEMO_K, n_samples=5, batch_size=1)
    return params.as_params(run), first_topic


def _has_gold_answers(page) -> bool:  # noqa: ANN001 (a TopicPage)
    return bool(page.topic.gold_answers)


class SeperConfig(MethodConfig):
    name = "evaluation.seper"
    label = "seper"
    verbose_name = "SePer utility"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
        from crux_app.page_links import PageLink
        from evaluation.agreement.label_tables import ComparisonSource, Scale
        from evaluation.agreement.sources import ItemTextSource
        from evaluation.leaderboard.columns import RunColumn
        from evaluation.seper.agreement_sources import answer_texts, load_answer_equivalence_table
        from evaluation.seper.api import api_endpoints as seper_api_endpoints
        from evaluation.seper.correlations import delta_seper_column
        from evaluation.seper.forms import SeperJobForm
        from evaluation.seper.job import KIND
        from evaluation.seper.job_estimate import estimate_seper
        from evaluation.seper.leaderboard_columns import delta_seper_k_topics
        from evaluation.seper.review_label_sources import SOURCE as REVIEW_SOURCE
        from evaluation.seper.topic_summary import SUMMARY

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="SePer",
                    queue="gpu",
                    description=(
                        "SePer / Delta-SePer of each QA topic without context, with each of a "
                        "run's top-k passages, the whole top-k and the gold passages (stored "
                        "rows are kept)."
                    ),
                    demo=_demo,
                    results_url=collection_page("seper-collection", "seper-topic"),
                    results_label="SePer page",
                    feeds=(PAGE, LEADERBOARD, AGREEMENT),
                    unit="questions",
                    estimate_work=estimate_seper,
                    describe=describe,
                ),
            ),
            # The API starts this method's jobs with the page's form (its parameters' bounds).
            job_forms=(JobForm(KIND, SeperJobForm),),
            api_endpoints=seper_api_endpoints(),
            page_links=(
                PageLink("seper-start", "Score SePer…", "seper-start", "collection"),
                PageLink(
                    "seper-topic",
                    "SePer / Delta-SePer",
                    "seper-topic",
                    "topic",
                    shown=_has_gold_answers,
                ),
            ),
            topic_summary=SUMMARY,
            leaderboard_columns=(
                RunColumn(
                    key="delta_seper",
                    label="ΔSePer@{k}",
                    values=delta_seper_column,
                    k_topics=delta_seper_k_topics,
                    description="mean Delta-SePer_S of the run's top-k context over the topics "
                    "SePer scored at this k (latest generator / NLI / sampling setting)",
                ),
            ),
            agreement_sources=(
                ComparisonSource(
                    key="answer_equivalence",
                    title="Answer equivalence: same meaning as a gold answer? yes/no (SePer "
                    "page and campaign task 3)",
                    scale=Scale.BINARY,
                    machine="SePer entailment kernel (loose match against the gold answers)",
                    categories=(0.0, 1.0),
                    class_names=ANSWER_EQUIVALENCE_CLASSES,
                    loader=load_answer_equivalence_table,
                ),
                ItemTextSource("answer", answer_texts),
            ),
            review_label_sources=(REVIEW_SOURCE,),
        )
