"""Answer generation's declaration: its job and its start link (not a method: the answers
are inputs that methods analyse)."""

from crux_app.method_config import Declaration, PluginConfig


def describe(params) -> str:  # noqa: ANN001 (a job's params)
    """ "run bm25, top-5" or "closed-book"."""
    run = params.get("run") or params.get("run_id")
    return f"run {run}, top-{params['k']}" if run else "closed-book (no passages)"


class AnswersConfig(PluginConfig):
    name = "evaluation.answers"
    label = "answers"
    verbose_name = "Generated answers"

    def declare(self) -> Declaration:
        from api.registry import JobForm
        from crux_app.jobs.catalog import JobKind, collection_page
        from crux_app.page_links import PageLink
        from evaluation.answers.forms import GenerateAnswersForm
        from evaluation.answers.job import KIND

        return Declaration(
            job_kinds=(
                JobKind(
                    name=KIND,
                    label="Generate answers",
                    queue="gpu",
                    description=(
                        "Short answers to each topic's question, greedily generated from a "
                        "run's top-k passages (or closed-book), with token log-probabilities."
                    ),
                    # The answers are listed on the topic pages.
                    results_url=collection_page("collection-detail", "topic-detail"),
                    results_label="Collection / topic page",
                    unit="questions",
                    describe=describe,
                ),
            ),
            # The API starts this method's jobs with the page's form (its parameters' bounds).
            job_forms=(JobForm(KIND, GenerateAnswersForm),),
            page_links=(
                PageLink("answers-start", "Generate answers…", "answers-start", "collection"),
            ),
        )
