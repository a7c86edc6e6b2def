"""Per run and topic the nugget scores from one judge's stored assignments, and their means.

A (run, topic) is scored over the nuggets the judge assigned for that answer, as the
nuggetizer scores an assign file; a topic counts for a run when the judge assigned any of its
nuggets to the run's answer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Q

from crux_app.models import Collection, Judge
from evaluation.nuggets.method.scores import NuggetScores, mean_scores, topic_scores
from evaluation.nuggets.models import NuggetAssignment


@dataclass(frozen=True)
class TopicScore:
    topic: str
    scores: NuggetScores


@dataclass(frozen=True)
class RunScore:
    run: str
    scores: NuggetScores
    topics: list[TopicScore] = field(default_factory=list)


def assignment_judges(collection: Collection) -> list[Judge]:
    """Judges with nugget assignments in the collection, most assignments first."""
    here = Q(nugget_assignments__output__collection=collection)
    return list(
        Judge.objects.filter(here)
        .annotate(n=Count("nugget_assignments", filter=here))
        .order_by("-n", "name")
    )


def _run_name(row: dict) -> str:
    return row["output__run__name"] or row["output__system"]


def run_scores(
    collection: Collection, judge: Judge, runs: list[str] | None = None
) -> list[RunScore]:
    """Every run the judge assigned nuggets for, by name, with its topics by external id."""
    rows = (
        NuggetAssignment.objects.filter(judge=judge, output__collection=collection)
        .order_by()
        .values(
            "output__run__name",
            "output__system",
            "output__topic__external_id",
            "nugget__importance",
            "assignment",
        )
    )
    labels: dict[str, dict[str, tuple[list[str], list[str]]]] = defaultdict(dict)
    for row in rows:
        topic = labels[_run_name(row)].setdefault(row["output__topic__external_id"], ([], []))
        topic[0].append(row["nugget__importance"])
        topic[1].append(row["assignment"])
    out = []
    for run in sorted(labels):
        if runs is not None and run not in runs:
            continue
        topics = [
            TopicScore(topic, topic_scores(*labels[run][topic])) for topic in sorted(labels[run])
        ]
        mean = mean_scores(t.scores for t in topics)
        assert mean is not None  # a run is listed only with a topic
        out.append(RunScore(run, mean, topics))
    return out


def scores_json(scores: list[RunScore]) -> dict:
    """The command's and the API's JSON: ``{"runs": [{"run", the four scores, "topics":
    [{"topic", the four scores}]}]}``."""
    return {
        "runs": [
            {
                "run": r.run,
                **r.scores.as_dict(),
                "topics": [{"topic": t.topic, **t.scores.as_dict()} for t in r.topics],
            }
            for r in scores
        ]
    }
