"""One cell of the coverage matrix: every judge's view of a (sub-question, passage) pair, and a
researcher's own expert rating of it, stored as a human judgment."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from crux_app.audit.reading import label_history
from crux_app.judges import researcher_judge
from crux_app.models import AuditEvent, Judge, Judgment, Passage, SubQuestion, Topic
from evaluation.crux.matrix.distributions import RatingDistribution, rating_distribution

PASSAGE_RATING = Judgment.Task.PASSAGE_RATING
HISTORY_SHOWN = 50  # the full trail is on the collection's audit page


@dataclass(frozen=True)
class CellDetail:
    subquestion: SubQuestion
    passage: Passage
    judgments: list[Judgment]  # every judge's, judge selected; LLM judges first, then by name
    own: Judgment | None  # the viewing researcher's own rating, if any

    @property
    def history(self) -> list[tuple[AuditEvent, str]]:
        """Each change of the cell's judgments (from the audit trail), oldest first, with the
        judge's name."""
        names = {j.pk: j.judge.name for j in self.judgments}
        events = label_history(Judgment._meta.db_table, names)
        return [(event, names.get(event.row_id, "")) for event in events[:HISTORY_SHOWN]]

    @property
    def rows(self) -> list[tuple[Judgment, RatingDistribution | None]]:
        """Each judgment with its rating distribution (distribution mode), if it has one."""
        return [(j, rating_distribution(j)) for j in self.judgments]


def cell_detail(
    topic: Topic, subquestion_id: int, passage_id: int, user: AbstractBaseUser
) -> CellDetail | None:
    """The cell's sub-question, passage and judgments; None when it is not a cell of the topic
    (unknown ids, a placeholder position, or a passage of another collection)."""
    subquestion = SubQuestion.objects.filter(
        pk=subquestion_id, topic=topic, is_placeholder=False
    ).first()
    passage = Passage.objects.filter(pk=passage_id, collection_id=topic.collection_id).first()
    if subquestion is None or passage is None:
        return None
    judgments = sorted(
        Judgment.objects.filter(
            subquestion=subquestion, passage=passage, task=PASSAGE_RATING
        ).select_related("judge"),
        key=lambda j: (j.judge.kind != Judge.Kind.LLM, j.judge.name),
    )
    own = next((j for j in judgments if j.judge.user_id == user.pk), None)
    return CellDetail(subquestion, passage, judgments, own)


@dataclass(frozen=True)
class ExpertRating:
    subquestion: SubQuestion
    passage: Passage
    rating: int
    rationale: str = ""
    rationale_start: int | None = None
    rationale_end: int | None = None
    time_spent_ms: int | None = None


def record_expert_rating(
    user: AbstractBaseUser, topic: Topic, rating: ExpertRating
) -> tuple[Judgment, bool]:
    """Store (or update) the researcher's rating of the cell; returns (judgment, created)."""
    with transaction.atomic():
        judge = researcher_judge(user)
        return Judgment.objects.update_or_create(
            judge=judge,
            subquestion=rating.subquestion,
            passage=rating.passage,
            defaults={
                "topic": topic,
                "task": PASSAGE_RATING,
                "rating": rating.rating,
                "rationale": rating.rationale,
                "rationale_start": rating.rationale_start,
                "rationale_end": rating.rationale_end,
                "time_spent_ms": rating.time_spent_ms,
            },
        )
