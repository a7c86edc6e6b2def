"""The nugget judges' labels as histograms, for ``crux_app.judge_choice``'s default-judge rule
and for the degenerate-judge warnings of the nugget pages: the assignment judge's labels, the
support judge's nugget-passage ratings, the sentence judge's grades on the whole collection,
nearly constant by ``evaluation.shared.degenerate``'s test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from crux_app.judge_choice import default_judge
from crux_app.models import Collection, Judge
from crux_app.vocabulary import RATING_LEVELS, nearly_constant
from evaluation.nuggets.losses import LossSettings
from evaluation.nuggets.method.scores import NOT_SUPPORT, PARTIAL_SUPPORT, SUPPORT
from evaluation.nuggets.models import NuggetAssignment, NuggetPassageRating, SentenceSupport
from evaluation.shared.degenerate import JudgeWarning, constant_ratings

# An assignment's label as a number, for the histogram: 2 supports, 1 partly, 0 not.
ASSIGNMENT_VALUES = {SUPPORT: 2.0, PARTIAL_SUPPORT: 1.0, NOT_SUPPORT: 0.0}
ANCHOR = "#nuggets-judges"
Histograms = dict[int, dict[float, int]]  # judge id -> value -> labels


def _per_judge(rows: QuerySet, column: str, value: Callable[[object], float | None]) -> Histograms:
    out: Histograms = {}
    for judge_id, label, n in (
        rows.order_by().values_list("judge_id", column).annotate(n=Count("pk"))
    ):
        number = value(label)
        if number is not None:
            out.setdefault(judge_id, {})[number] = n
    return out


def assignment_histograms(collection: Collection) -> Histograms:
    rows = NuggetAssignment.objects.filter(output__collection=collection)
    return _per_judge(rows, "assignment", ASSIGNMENT_VALUES.get)


def rating_histograms(collection: Collection) -> Histograms:
    rows = NuggetPassageRating.objects.filter(nugget__topic__collection=collection)
    return _per_judge(rows, "rating", float)


def grade_histograms(collection: Collection) -> Histograms:
    rows = SentenceSupport.objects.filter(passage__collection=collection)
    return _per_judge(rows, "grade", float)


@dataclass(frozen=True)
class Labels:
    """One kind of nugget label: its histograms and how many values it has."""

    what: str  # as a warning's scope says it
    histograms: Callable[[Collection], Histograms]
    levels: int


ASSIGNMENTS = Labels(
    "nugget assignments: 2 support, 1 partial support, 0 not support", assignment_histograms, 3
)
RATINGS = Labels("nugget-passage ratings", rating_histograms, RATING_LEVELS)
GRADES = Labels("sentence support grades 0-2", grade_histograms, 3)


@dataclass(frozen=True)
class Candidate:
    """A nugget judge as ``crux_app.judge_choice`` ranks it (one topic count for all)."""

    judge: Judge
    n_judgments: int
    degenerate: bool
    n_topics: int = 1

    @property
    def id(self) -> int:
        return self.judge.pk

    @property
    def name(self) -> str:
        return self.judge.name

    @property
    def kind(self) -> str:
        return self.judge.kind


def default_of(collection: Collection, judges: list[Judge], labels: Labels) -> Judge | None:
    """The one rule's default among ``judges`` by their ``labels`` in the collection."""
    if len(judges) < 2:  # nothing to choose between: no histogram to read
        return judges[0] if judges else None
    histograms = labels.histograms(collection)
    candidates = [
        Candidate(
            j,
            sum(histograms.get(j.pk, {}).values()),
            nearly_constant(histograms.get(j.pk, {}), levels=labels.levels),
        )
        for j in judges
    ]
    found = default_judge(candidates)
    return found.judge if found is not None else None


def nugget_warnings(
    collection: Collection, settings: LossSettings | None, anchor: str = ANCHOR
) -> list[JudgeWarning]:
    """Each judge of ``settings`` whose labels in the collection are nearly constant (``anchor``:
    where the page names the judges)."""
    if settings is None:
        return []
    chosen = (
        (settings.judge, ASSIGNMENTS),
        (settings.support_judge, RATINGS),
        (settings.sentence_judge, GRADES),
    )
    found = []
    for judge, labels in chosen:
        if judge is None:
            continue
        counts = labels.histograms(collection).get(judge.pk, {})
        scope = f"in {collection.name} ({labels.what})"
        found.append(constant_ratings(judge.name, counts, scope=scope, levels=labels.levels))
    return [w.linked(anchor, "the judges") for w in found if w is not None]
