"""The nugget method's labels, declared to ``crux_app.judge_labels`` so a collection's pages count
its nugget judges: nugget assignments, nugget-passage ratings and sentence supports."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from crux_app.judge_labels import JudgeLabelSource
from crux_app.models import Collection
from evaluation.nuggets.models import NuggetAssignment, NuggetPassageRating, SentenceSupport


def _per_judge(rows: QuerySet) -> dict[int, int]:
    return dict(rows.order_by().values_list("judge_id").annotate(n=Count("pk")))


def assignments(collection: Collection) -> dict[int, int]:
    return _per_judge(NuggetAssignment.objects.filter(output__collection=collection))


def passage_ratings(collection: Collection) -> dict[int, int]:
    return _per_judge(NuggetPassageRating.objects.filter(nugget__topic__collection=collection))


def sentence_supports(collection: Collection) -> dict[int, int]:
    return _per_judge(SentenceSupport.objects.filter(passage__collection=collection))


SOURCES = (
    JudgeLabelSource("nugget_assignments", "nugget assignments", assignments),
    JudgeLabelSource("nugget_passage_ratings", "nugget-passage ratings", passage_ratings),
    JudgeLabelSource("sentence_supports", "sentence supports", sentence_supports),
)
