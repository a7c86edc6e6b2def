"""What SePer adds to the shared registries: its job kind, the answer-equivalence agreement
source, the Delta-SePer leaderboard column and its page links (called from
``SeperConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, collection_page, register_kind
from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
from crux_app.page_links import PageLink, register_link
from crux_app.topic_summaries import register_topic_summary
from evaluation.agreement.sources import (
    ComparisonSource,
    Scale,
    register_item_texts,
    register_source,
)
from evaluation.leaderboard.columns import RunColumn, register_column
from evaluation.seper.agreement_source import answer_texts, load_answer_equivalence_table
from evaluation.seper.correlations import delta_seper_column
from evaluation.seper.job import KIND, SeperJobParams
from evaluation.seper.job_estimate import estimate_seper
from evaluation.seper.leaderboard_depths import delta_seper_k_topics
from evaluation.seper.topic_summary import SUMMARY as TOPIC_SUMMARY

DEMO_K = 3
PAGE = "seper"  # its correlations and topic pages (crux_app.jobs.feeding)


def describe(params) -> str:
    """ "run bm25, top-3, 5 samples" (no run: the baseline and the gold passages only)."""
    run = params.get("run") or params.get("run_id")
    where = f"run {run}, top-{params['k']}" if run else "no run: baseline and gold passages"
    return f"{where}, {params['n_samples']} samples"


def _demo(run, first_topic):
    # The slowest method on a CPU: the demo scores one question.
    params = SeperJobParams(run_id=run.pk, k=DEMO_K, n_samples=5, batch_size=1)
    return params.as_params(run), first_topic


def _has_gold_answers(page) -> bool:
    return bool(page.topic.gold_answers)


ANSWER_EQUIVALENCE_CLASSES = ((1.0, "same meaning"), (0.0, "different meaning"))


def register() -> None:
    register_api()
    register_kind(
        JobKind(
            name=KIND,
            label="SePer",
            task_name="evaluation.seper.tasks.gpu_seper",
            description=(
                "SePer / Delta-SePer of each QA topic without context, with each of a run's "
                "top-k passages, the whole top-k and the gold passages (stored rows are kept)."
            ),
            demo=_demo,
            demo_order=3,
            results_url=collection_page("seper-collection", "seper-topic"),
            results_label="SePer page",
            feeds=(PAGE, LEADERBOARD, AGREEMENT),
            unit="questions",
            estimate_work=estimate_seper,
            describe=describe,
        )
    )
    register_link(PageLink("seper-start", "Score SePer…", "seper-start", "collection", 50))
    register_link(
        PageLink(
            "seper-topic",
            "SePer / Delta-SePer",
            "seper-topic",
            "topic",
            20,
            shown=_has_gold_answers,
        )
    )
    register_source(
        ComparisonSource(
            key="answer_equivalence",
            title="Answer equivalence: same meaning as a gold answer? yes/no (SePer page and "
            "campaign task 3)",
            scale=Scale.BINARY,
            machine="SePer entailment kernel (loose match against the gold answers)",
            categories=(0.0, 1.0),
            class_names=ANSWER_EQUIVALENCE_CLASSES,
            loader=load_answer_equivalence_table,
        )
    )
    register_item_texts("answer", answer_texts)
    register_column(
        RunColumn(
            key="delta_seper",
            label="ΔSePer@{k}",
            values=delta_seper_column,
            k_topics=delta_seper_k_topics,
            description="mean Delta-SePer_S of the run's top-k context over the topics SePer "
            "scored at this k (latest generator / NLI / sampling setting)",
        )
    )
    register_topic_summary(TOPIC_SUMMARY)


def register_api() -> None:
    """The API starts this method's jobs with the page's form (its parameters' bounds)."""
    from api.registry import register_job_form
    from evaluation.seper.forms import SeperJobForm

    register_job_form(KIND, SeperJobForm)
