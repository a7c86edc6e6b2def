"""What CRUX adds to the shared registries: the judging job, its leaderboard columns, its
comparison sources, its links on the collection and topic pages (called from
``CruxConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, register_kind
from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
from crux_app.judge_kinds import JudgeKindLabel, register_judge_kind
from crux_app.page_links import PageLink, register_link
from crux_app.topic_summaries import register_topic_summary
from evaluation.agreement.sources import (
    BINARY_CLASSES,
    RATING_CATEGORIES,
    ComparisonSource,
    Scale,
    register_source,
)
from evaluation.crux.agreement_sources import load_judgment_table
from evaluation.crux.coverage_agreement import COVERAGE_DEFINITION, report_coverage_records
from evaluation.crux.job import DISTRIBUTION, EMBEDDING, EMBEDDING_KIND, KIND, JudgeJobParams
from evaluation.crux.job_names import judging_description, judging_title
from evaluation.crux.job_results import judging_results_label, judging_results_url
from evaluation.crux.judge_estimate import estimate_judging
from evaluation.crux.leaderboard_columns import GROUP
from evaluation.crux.method.embedding_rating import PROMPT_VERSION as EMBEDDING_RUBRIC
from evaluation.crux.topic_summary import SUMMARY as TOPIC_SUMMARY
from evaluation.leaderboard.columns import register_group

JUDGE_TITLE = "Rate with the configured LLM judge every item it has not rated yet"
# The demo judges the CRUX demo collection (both runs' top 10 and the qrels' passages): the
# embedding baseline first (seconds), the LLM judge's distribution mode last (minutes on CPU).
DEMO_COLLECTION = "demo"
DEMO_K = 10
# The pages a judging job fills: the coverage matrix and the two cross-method pages; the
# leaderboard's "judge missing items" offer asks for MISSING_JUDGMENTS (the LLM judge's jobs).
MATRIX_PAGE = "crux-matrix"
MISSING_JUDGMENTS = "crux-missing-judgments"


def _demo_judge(method: str):
    def demo(run, first_topic):
        return JudgeJobParams(scope="collection", k=DEMO_K, method=method).as_params(), None

    return demo


def _has_outputs(page) -> bool:
    return bool(getattr(page, "outputs", None))


def _is_embedding_judge(kind: str, prompt_version: str) -> bool:
    """The embedding baseline is stored as an ``llm`` judge whose "prompt" is its rubric."""
    return kind == "llm" and prompt_version == EMBEDDING_RUBRIC


def register() -> None:
    register_api()
    register_group(GROUP)
    register_judge_kind(
        JudgeKindLabel("embedding", "embedding baseline", _is_embedding_judge, has_prompt=False)
    )
    register_kind(
        JobKind(
            name=KIND,
            label="Judge answerability",
            task_name="evaluation.crux.tasks.gpu_judge",
            description=(
                "CRUX 0-5 rubric ratings by an LLM judge of the (sub-question, passage or "
                "report) items of a scope that the judge has not rated yet."
            ),
            demo=_demo_judge(DISTRIBUTION),
            demo_order=90,
            demo_collection=DEMO_COLLECTION,
            results_url=judging_results_url,
            results_label=judging_results_label,
            feeds=(MATRIX_PAGE, LEADERBOARD, AGREEMENT, MISSING_JUDGMENTS),
            unit="items",
            title=judging_title,
            describe=judging_description,
            estimate_work=estimate_judging,
        )
    )
    register_kind(
        JobKind(
            name=EMBEDDING_KIND,
            label="Judge by embedding (baseline)",
            task_name="evaluation.crux.tasks.judge_embedding",
            description=(
                "The cheap baseline judge: the embedder's cosine between each sub-question and "
                "passage (or report), cut into 0-5 (no LLM; cpu queue, seconds per collection)."
            ),
            demo=_demo_judge(EMBEDDING),
            demo_order=0,
            demo_collection=DEMO_COLLECTION,
            results_url=judging_results_url,
            results_label=judging_results_label,
            feeds=(MATRIX_PAGE, LEADERBOARD, AGREEMENT),
            unit="items",
            describe=judging_description,
            estimate_work=estimate_judging,
        )
    )
    for link in [
        PageLink("crux-disagreements", "Disagreements", "crux-disagreements", "collection", 20),
        PageLink("crux-start", "Judge missing items…", "crux-start", "collection", 40),
        PageLink("crux-topic", "Coverage matrix", "crux-topic", "topic", 10),
        PageLink(
            "crux-judge-topic",
            "Judge missing passage items (LLM)",
            "crux-start",
            "topic",
            90,
            title=JUDGE_TITLE,
            post_fields={"scope": "collection", "topic": "{topic_id}"},
            collection_url=True,
        ),
        PageLink(
            "crux-judge-topic-outputs",
            "Judge missing report items (LLM)",
            "crux-start",
            "topic",
            91,
            title=JUDGE_TITLE,
            post_fields={"scope": "outputs", "topic": "{topic_id}"},
            shown=_has_outputs,
            collection_url=True,
        ),
    ]:
        register_link(link)
    register_source(
        ComparisonSource(
            key="passage_rating",
            title="Passage x sub-question answerability rating, 0-5 (CRUX task 2)",
            scale=Scale.ORDINAL,
            machine="LLM judge",
            categories=RATING_CATEGORIES,
            class_names=BINARY_CLASSES,
            loader=load_judgment_table,
        )
    )
    register_source(
        ComparisonSource(
            key="report_coverage",
            title="Report x sub-question: is it answered in the report, yes/no (CRUX task 1)",
            scale=Scale.BINARY,
            machine="LLM judge",
            categories=(0.0, 1.0),
            class_names=BINARY_CLASSES,
            loader=load_judgment_table,
            derived=report_coverage_records,
            derived_definition=COVERAGE_DEFINITION,
        )
    )
    register_topic_summary(TOPIC_SUMMARY)


def register_api() -> None:
    """The API starts this method's jobs with the page's form (its parameters' bounds)."""
    from api.registry import register_job_form
    from evaluation.crux.api import register_api as register_endpoints
    from evaluation.crux.forms import JudgeJobForm

    register_endpoints()

    register_job_form(KIND, JudgeJobForm)
    register_job_form(EMBEDDING_KIND, JudgeJobForm, fixed={"method": EMBEDDING})
