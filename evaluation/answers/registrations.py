"""What answer generation adds to the shared registries: its job kind and its start link
(called from ``AnswersConfig.ready``)."""

from crux_app.jobs.catalog import JobKind, collection_page, register_kind
from crux_app.page_links import PageLink, register_link
from evaluation.answers.job import KIND


def describe(params) -> str:
    """ "run bm25, top-5" or "closed-book"."""
    run = params.get("run") or params.get("run_id")
    return f"run {run}, top-{params['k']}" if run else "closed-book (no passages)"


def register() -> None:
    register_api()
    register_kind(
        JobKind(
            name=KIND,
            label="Generate answers",
            task_name="evaluation.answers.tasks.gpu_generate_answers",
            description=(
                "Short answers to each topic's question, greedily generated from a run's "
                "top-k passages (or closed-book), with token log-probabilities."
            ),
            # The answers are listed on the topic pages.
            results_url=collection_page("collection-detail", "topic-detail"),
            results_label="Collection / topic page",
            unit="questions",
            describe=describe,
        )
    )
    register_link(PageLink("answers-start", "Generate answers…", "answers-start", "collection", 45))


def register_api() -> None:
    """The API starts this method's jobs with the page's form (its parameters' bounds)."""
    from api.registry import register_job_form
    from evaluation.answers.forms import GenerateAnswersForm

    register_job_form(KIND, GenerateAnswersForm)
