"""CRUX's declaration: the judging jobs, their leaderboard columns, comparison sources, judge
kind, links on the collection and topic pages, topic summary and API endpoints."""

from crux_app.method_config import Declaration, MethodConfig

JUDGE_TITLE = "Rate with the configured LLM judge every item it has not rated yet"
# The demo judges the CRUX demo collection (both runs' top 10 and the qrels' passages).
DEMO_COLLECTION = "demo"
DEMO_K = 10
# The pages a judging job fills: the coverage matrix and the two cross-method pages; the
# leaderboard's "judge missing items" offer asks for MISSING_JUDGMENTS (the LLM judge's jobs).
MATRIX_PAGE = "crux-matrix"
MISSING_JUDGMENTS = "crux-missing-judgments"


def _demo_judge(method: str):  # noqa: ANN202 (a catalog DemoJob)
    def demo(run, first_topic):  # noqa: ANN001, ANN202
        from evaluation.crux.job import JudgeJobParams

        return JudgeJobParams(scope="collection", k=DEMO_K, method=method).as_params(), None

    return demo


def _has_outputs(page) -> bool:  # noqa: ANN001 (a CollectionPage or TopicPage)
    return bool(getattr(page, "outputs", None))


def _is_embedding_judge(kind: str, prompt_version: str) -> bool:
    """The embedding baseline is stored as an ``llm`` judge whose "prompt" is its rubric."""
    from evaluation.crux.method.embedding_rating import PROMPT_VERSION as EMBEDDING_RUBRIC

    return kind == "llm" and prompt_version == EMBEDDING_RUBRIC


class CruxConfig(MethodConfig):
    name = "evaluation.crux"
    label = "crux"
    verbose_name = "CRUX judging and coverage"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind
        from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD
        from crux_app.judge_kinds import JudgeKindLabel
        from crux_app.page_links import PageLink
        from evaluation.agreement.label_tables import (
            BINARY_CLASSES,
            RATING_CATEGORIES,
            ComparisonSource,
            Scale,
        )
        from evaluation.crux.agreement_sources import load_judgment_table
        from evaluation.crux.api import api_endpoints
        from evaluation.crux.coverage_agreement import COVERAGE_DEFINITION, report_coverage_records
        from evaluation.crux.forms import JudgeJobForm
        from evaluation.crux.job import DISTRIBUTION, EMBEDDING, EMBEDDING_KIND, KIND
        from evaluation.crux.job_names import judging_description, judging_title
        from evaluation.crux.job_results import judging_results_label, judging_results_url
        from evaluation.crux.judge_estimate import estimate_judging
        from evaluation.crux.leaderboard_columns import GROUP
        from evaluation.crux.topic_summary import SUMMARY

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="Judge answerability",
                    queue="gpu",
                    # The demo's LLM judge (distribution mode) takes minutes on a CPU: the
                    # quick demo jobs go first on its one worker, so their pages fill first.
                    demo_pace="slow",
                    description=(
                        "CRUX 0-5 rubric ratings by an LLM judge of the (sub-question, passage "
                        "or report) items of a scope that the judge has not rated yet."
                    ),
                    demo=_demo_judge(DISTRIBUTION),
                    demo_collection=DEMO_COLLECTION,
                    results_url=judging_results_url,
                    results_label=judging_results_label,
                    feeds=(MATRIX_PAGE, LEADERBOARD, AGREEMENT, MISSING_JUDGMENTS),
                    unit="items",
                    title=judging_title,
                    describe=judging_description,
                    estimate_work=estimate_judging,
                ),
                JobKind(
                    name=EMBEDDING_KIND,
                    label="Judge by embedding (baseline)",
                    queue="cpu",
                    description=(
                        "The cheap baseline judge: the embedder's cosine between each "
                        "sub-question and passage (or report), cut into 0-5 (no LLM; cpu queue, "
                        "seconds per collection)."
                    ),
                    demo=_demo_judge(EMBEDDING),
                    demo_collection=DEMO_COLLECTION,
                    results_url=judging_results_url,
                    results_label=judging_results_label,
                    feeds=(MATRIX_PAGE, LEADERBOARD, AGREEMENT),
                    unit="items",
                    describe=judging_description,
                    estimate_work=estimate_judging,
                ),
            ),
            # The API starts this method's jobs with the page's form (its parameters' bounds).
            job_forms=(
                JobForm(KIND, JudgeJobForm, takes_topic=True),
                JobForm(
                    EMBEDDING_KIND, JudgeJobForm, fixed={"method": EMBEDDING}, takes_topic=True
                ),
            ),
            page_links=(
                PageLink(
                    "crux-disagreements",
                    "Disagreements",
                    "crux-disagreements",
                    "collection",
                    # Beside the leaderboard, before the agreement page that follows it.
                    before=("agreement",),
                ),
                PageLink("crux-start", "Judge missing items…", "crux-start", "collection"),
                PageLink("crux-topic", "Coverage matrix", "crux-topic", "topic"),
                PageLink(
                    "crux-judge-topic",
                    "Judge missing passage items (LLM)",
                    "crux-start",
                    "topic",
                    title=JUDGE_TITLE,
                    post_fields={"scope": "collection", "topic": "{topic_id}"},
                    collection_url=True,
                ),
                PageLink(
                    "crux-judge-topic-outputs",
                    "Judge missing report items (LLM)",
                    "crux-start",
                    "topic",
                    title=JUDGE_TITLE,
                    post_fields={"scope": "outputs", "topic": "{topic_id}"},
                    shown=_has_outputs,
                    collection_url=True,
                ),
            ),  # fmt: skip
            topic_summary=SUMMARY,
            judge_kinds=(
                JudgeKindLabel(
                    "embedding", "embedding baseline", _is_embedding_judge, has_prompt=False
                ),
            ),
            leaderboard_columns=(GROUP,),
            agreement_sources=(
                ComparisonSource(
                    key="passage_rating",
                    title="Passage x sub-question answerability rating, 0-5 (CRUX task 2)",
                    scale=Scale.ORDINAL,
                    machine="LLM judge",
                    categories=RATING_CATEGORIES,
                    class_names=BINARY_CLASSES,
                    loader=load_judgment_table,
                    topic_url_name="crux-topic",
                    cell_url_name="crux-topic-cell",
                ),
                ComparisonSource(
                    key="report_coverage",
                    title=(
                        "Report x sub-question: is it answered in the report, yes/no (CRUX task 1)"
                    ),
                    scale=Scale.BINARY,
                    machine="LLM judge",
                    categories=(0.0, 1.0),
                    class_names=BINARY_CLASSES,
                    loader=load_judgment_table,
                    derived=report_coverage_records,
                    derived_definition=COVERAGE_DEFINITION,
                    topic_url_name="crux-topic",
                ),
            ),
            api_endpoints=api_endpoints(),
        )
