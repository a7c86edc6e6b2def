from crux_app.method_config import Declaration, MethodConfig

PAGE = "nuggets"  # its collection page (crux_app.jobs.feeding)


class NuggetsConfig(MethodConfig):
    name = "evaluation.nuggets"
    label = "nuggets"
    verbose_name = "Nuggets (TREC RAG nugget evaluation)"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.jobs.feeding import LEADERBOARD
        from crux_app.page_links import PageLink
        from evaluation.nuggets.agreement_sources import SOURCE
        from evaluation.nuggets.api import api_endpoints
        from evaluation.nuggets.assignment_review import SOURCE as ASSIGNMENT_REVIEW
        from evaluation.nuggets.assignment_task_type import NUGGET_ASSIGNMENT
        from evaluation.nuggets.forms import KIND, NuggetJobForm
        from evaluation.nuggets.job_estimate import estimate_nuggets
        from evaluation.nuggets.judge_labels import SOURCES as JUDGE_LABELS
        from evaluation.nuggets.leaderboard_columns import GROUP
        from evaluation.nuggets.post_edit_task import NUGGET_POST_EDITING
        from evaluation.nuggets.topic_summary import SUMMARY

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="Nugget judging",
                    queue="gpu",
                    description=(
                        "LLM nugget creation with importance, nugget assignment to answers "
                        "(3 or 2 grades) or sentence-citation support (0/1/2), skipping what "
                        "the judge has stored."
                    ),
                    results_url=collection_page("nuggets-collection"),
                    results_label="Nuggets page",
                    feeds=(PAGE, LEADERBOARD),
                    unit="items",
                    describe=lambda params: params.get("task", ""),
                    estimate_work=estimate_nuggets,
                ),
            ),
            job_forms=(JobForm(KIND, NuggetJobForm),),
            page_links=(
                PageLink(
                    "nuggets-collection",
                    "Nuggets",
                    "nuggets-collection",
                    "collection",
                    title="TREC RAG nugget scores and where each vital nugget was lost",
                ),
                PageLink(
                    "nuggets-topic",
                    "Nuggets",
                    "nuggets-topic",
                    "topic",
                    title="this topic's nuggets, where each was lost, passages and sentences",
                ),
            ),
            leaderboard_columns=(GROUP,),
            agreement_sources=(SOURCE,),
            topic_summary=SUMMARY,
            judge_labels=JUDGE_LABELS,
            api_endpoints=api_endpoints(),
            annotation_task_types=(NUGGET_ASSIGNMENT, NUGGET_POST_EDITING),
            review_label_sources=(ASSIGNMENT_REVIEW,),
        )

    def ready(self) -> None:
        super().ready()
        # The import catalog is a plain dict and demo data no Declaration field (yet).
        from crux_app.demo_data import register_demo_data
        from evaluation.nuggets.demo import DEMO
        from evaluation.nuggets.formats import register_formats

        register_formats()
        register_demo_data(DEMO)
