"""The leaderboard's nugget column group: per run the four nugget scores (means over its
topics) from stored assignments of one judge: the leaderboard's judge where it assigned nuggets
in the collection, else the judge with the most assignments. None where a run has none."""

from __future__ import annotations

from typing import TYPE_CHECKING

from evaluation.leaderboard.columns import Column, ColumnGroup, GroupValues
from evaluation.nuggets.judge_warnings import ASSIGNMENTS, default_of
from evaluation.nuggets.method.scores import SCORE_NAMES
from evaluation.nuggets.run_scores import assignment_judges, run_scores

if TYPE_CHECKING:
    from crux_app.models import Collection, Judge
    from evaluation.leaderboard.columns import LeaderboardParams

LABELS = {
    "strict_vital": "Nuggets strict vital",
    "strict_all": "Nuggets strict all",
    "vital": "Nuggets vital",
    "all": "Nuggets all",
}
DESCRIPTIONS = {
    "strict_vital": "share of vital nuggets the answer fully supports (TREC RAG nuggetizer)",
    "strict_all": "share of all nuggets the answer fully supports",
    "vital": "share of vital nuggets supported, a partial support counting 0.5",
    "all": "share of all nuggets supported, a partial support counting 0.5",
}
# What the judge report says its nugget metrics rest on.
JUDGE_BASIS = (
    "under each judge's own nugget assignments (a partial support counts 0.5 outside the "
    "strict scores)"
)


def column_key(score: str) -> str:
    return f"nuggets_{score}"


def scoring_judge(collection: Collection, params: LeaderboardParams) -> Judge | None:
    known = assignment_judges(collection)
    for judge in known:
        if judge.name == params.judge:
            return judge
    return default_of(collection, known, ASSIGNMENTS)


def assignment_judge_names(collection: Collection) -> list[str]:
    """The judges the judge report may compare on nugget scores: those with assignments here."""
    return [judge.name for judge in assignment_judges(collection)]


def _per_run(collection: Collection, params: LeaderboardParams, run_names: list[str]):
    judge = scoring_judge(collection, params)
    return judge, ([] if judge is None else run_scores(collection, judge, run_names))


def nugget_values(
    collection: Collection, params: LeaderboardParams, run_names: list[str]
) -> GroupValues:
    judge, scores = _per_run(collection, params, run_names)
    values = {column_key(s): dict.fromkeys(run_names) for s in SCORE_NAMES}
    for run in scores:
        for score in SCORE_NAMES:
            values[column_key(score)][run.run] = getattr(run.scores, score)
    return GroupValues(values, judge=judge.name if judge else "")


def nugget_per_topic(
    collection: Collection, params: LeaderboardParams, run_names: list[str]
) -> dict[str, dict[tuple[str, int], float | None]]:
    """Per-(run, topic) scores under exactly the named judge (no values when it assigned no
    nugget here): the judge report compares two judges' rankings through these, so falling back
    to another judge, as the leaderboard's display does, would compare a judge with itself."""
    if params.judge is None:
        _, scores = _per_run(collection, params, run_names)
    else:
        judge = next((j for j in assignment_judges(collection) if j.name == params.judge), None)
        scores = [] if judge is None else run_scores(collection, judge, run_names)
    topic_ids = dict(collection.topics.values_list("external_id", "pk"))
    out: dict[str, dict[tuple[str, int], float | None]] = {column_key(s): {} for s in SCORE_NAMES}
    for run in scores:
        for topic in run.topics:
            for score in SCORE_NAMES:
                out[column_key(score)][(run.run, topic_ids[topic.topic])] = getattr(
                    topic.scores, score
                )
    return out


GROUP = ColumnGroup(
    key="nuggets",
    columns=tuple(
        Column(
            column_key(s), LABELS[s], DESCRIPTIONS[s], judge_report=True, judge_basis=JUDGE_BASIS
        )
        for s in SCORE_NAMES
    ),
    compute=nugget_values,
    per_topic=nugget_per_topic,
    judges=assignment_judge_names,
)
