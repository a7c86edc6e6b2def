"""The kinds of job the app can start, each bound by name to the Celery task that runs it.

Tasks are named, not imported, so the web process never imports model code; a task whose
name starts with ``gpu_`` is routed to the ``gpu`` queue (settings.CELERY_TASK_ROUTES).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    task_name: str
    description: str = ""


class UnknownJobKind(ValueError):
    """A job kind that is not in the catalog."""


CATALOG: dict[str, JobKind] = {
    kind.name: kind
    for kind in [
        JobKind(
            name="generate_answers",
            label="Generate answers",
            task_name="evaluation.tasks.gpu_generate_answers",
            description=(
                "Short answers to each topic's question, greedily generated from a run's "
                "top-k passages (or closed-book), with token log-probabilities."
            ),
        ),
        JobKind(
            name="judge_answerability",
            label="Judge answerability",
            task_name="evaluation.tasks.gpu_judge",
            description=(
                "CRUX 0-5 rubric ratings by an LLM judge of the (sub-question, passage or "
                "report) items of a scope that the judge has not rated yet."
            ),
        ),
        JobKind(
            name="seper",
            label="SePer",
            task_name="evaluation.tasks.gpu_seper",
            description=(
                "SePer / Delta-SePer of each QA topic without context, with each of a run's "
                "top-k passages, the whole top-k and the gold passages (stored rows are kept)."
            ),
        ),
        JobKind(
            name="dense",
            label="DENSE",
            task_name="dense.tasks.gpu_dense",
            description=(
                "DENSE uncertainty of each question under a run's top-k: rephrased chunks, "
                "greedy answers, the entailment graph, DSE, chunk diagnosis and refinement."
            ),
        ),
        JobKind(
            name="scaar",
            label="SCAAR",
            task_name="scaar.tasks.gpu_scaar",
            description=(
                "SCAAR word contributions of generated answers: per-sentence thresholds, "
                "retrieval triggers and percentile-filtered queries."
            ),
        ),
        JobKind(
            name="reteval",
            label="LLM-retEval",
            task_name="reteval.tasks.gpu_reteval",
            description=(
                "RAG answers from a run's top-k and semi-gold answers from the gold passages, "
                "compared by the CompareGPT judge (LLM-retEval@k)."
            ),
        ),
    ]
}


def get_kind(name: str) -> JobKind:
    try:
        return CATALOG[name]
    except KeyError:
        known = ", ".join(sorted(CATALOG))
        raise UnknownJobKind(f"unknown job kind {name!r}; known kinds: {known}") from None


def kind_label(name: str) -> str:
    """The kind's human label, or its raw name for kinds no longer in the catalog."""
    kind = CATALOG.get(name)
    return kind.label if kind else name
