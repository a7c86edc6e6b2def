"""QuerySet methods for the researcher pages' aggregates: counts, run ranks, judgment summaries.

Counts over several reverse relations are correlated subqueries, not joined ``Count``s: joining
topics, passages and judgments at once multiplies rows and makes the counts both wrong and slow.
Models are looked up through the app registry because this module is imported by the model
modules themselves.
"""

from __future__ import annotations

from django.apps import apps
from django.db import connection, models
from django.db.models import Avg, Count, F, Func, IntegerField, OuterRef, Q, Subquery, Window
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, RowNumber

from crux_app.access_scope import workspaces_of


def _model(name: str) -> type[models.Model]:
    return apps.get_model("crux_app", name)


def _count_of(
    model_name: str, link: str, *, distinct: str | None = None, where: Q | None = None
) -> Coalesce:
    """A correlated ``COUNT`` of ``model_name`` rows whose ``link`` points at the outer row."""
    rows = _model(model_name).objects.filter(**{link: OuterRef("pk")})
    if where is not None:
        rows = rows.filter(where)
    if distinct:
        counted = Count(distinct, distinct=True)
        rows = rows.order_by().values(link).annotate(n=counted).values("n")
    else:
        # COUNT(*) without GROUP BY: one row per outer row even when nothing matches.
        rows = rows.order_by().annotate(n=Func("pk", function="COUNT", output_field=IntegerField()))
        rows = rows.values("n")
    return Coalesce(Subquery(rows[:1], output_field=IntegerField()), 0)


def _pooled_passage_count() -> RawSQL:
    """Distinct passages a topic touches through runs, passage judgments or qrels."""
    q = connection.ops.quote_name
    topic = q(_model("Topic")._meta.db_table)
    sources = [
        (_model("RunEntry")._meta.db_table, ""),
        (_model("Judgment")._meta.db_table, " AND passage_id IS NOT NULL"),
        (_model("PassageQrel")._meta.db_table, ""),
    ]
    union = " UNION ".join(
        f"SELECT passage_id FROM {q(table)} WHERE topic_id = {topic}.id{extra}"
        for table, extra in sources
    )
    return RawSQL(f"SELECT COUNT(*) FROM ({union}) AS pooled", [], output_field=IntegerField())


class CollectionQuerySet(models.QuerySet):
    def visible_to(self, who: object, *, write: bool = False) -> CollectionQuerySet:
        """The collections ``who`` (an account, a request or a ``crux_app.access.Access``) may
        see, or with ``write`` change: those of its workspaces (see ``crux_app.access``)."""
        return self.filter(workspace__in=workspaces_of(who, write=write))

    def with_counts(self) -> CollectionQuerySet:
        """Annotate n_topics, n_subquestions, n_passages, n_runs, n_outputs, n_judges,
        n_judgments (sub-questions exclude placeholder positions)."""
        return self.annotate(
            n_topics=_count_of("Topic", "collection"),
            n_subquestions=_count_of(
                "SubQuestion", "topic__collection", where=Q(is_placeholder=False)
            ),
            n_passages=_count_of("Passage", "collection"),
            n_runs=_count_of("Run", "collection"),
            n_outputs=_count_of("GeneratedOutput", "collection"),
            n_judges=_count_of("Judgment", "topic__collection", distinct="judge"),
            n_judgments=_count_of("Judgment", "topic__collection"),
        )


class TopicQuerySet(models.QuerySet):
    def visible_to(self, who: object, *, write: bool = False) -> TopicQuerySet:
        """The topics of the collections ``who`` may see (``write``: change)."""
        return self.filter(collection__in=_model("Collection").objects.visible_to(who, write=write))

    def with_counts(self) -> TopicQuerySet:
        """Annotate n_subquestions (real ones), n_placeholders, n_passages (pooled), n_outputs,
        n_judgments."""
        return self.annotate(
            n_subquestions=_count_of("SubQuestion", "topic", where=Q(is_placeholder=False)),
            n_placeholders=_count_of("SubQuestion", "topic", where=Q(is_placeholder=True)),
            n_passages=_pooled_passage_count(),
            n_outputs=_count_of("GeneratedOutput", "topic"),
            n_judgments=_count_of("Judgment", "topic"),
        )


class RunQuerySet(models.QuerySet):
    def with_entry_counts(self) -> RunQuerySet:
        """Annotate n_entries and n_topics (topics the run ranks passages for)."""
        return self.annotate(
            n_entries=Count("entries"), n_topics=Count("entries__topic", distinct=True)
        ).order_by("name")


class RunEntryQuerySet(models.QuerySet):
    def ranks_for_topic(self, topic_id: int) -> RunEntryQuerySet:
        """(run_id, passage_id, position) rows of every run's ranking for one topic.

        The position is 1-based in (rank, file line) order: some released run files repeat one
        rank for a whole topic, so the stored rank alone cannot order them.
        """
        position = Window(
            RowNumber(), partition_by=[F("run_id")], order_by=[F("rank"), F("line_order")]
        )
        return (
            self.filter(topic_id=topic_id)
            .order_by()
            .annotate(position=position)
            .values_list("run_id", "passage_id", "position")
        )


class JudgeQuerySet(models.QuerySet):
    def for_collection(self, collection_id: int) -> JudgeQuerySet:
        """Judges with judgments in the collection, annotated with n_judgments there."""
        # filter() before annotate() on the same relation: the count sees only these rows.
        return (
            self.filter(judgments__topic__collection_id=collection_id)
            .annotate(n_judgments=Count("judgments"))
            .order_by("name")
        )

    def for_topic(self, topic_id: int, task: str) -> JudgeQuerySet:
        """Judges with judgments of this task on the topic, annotated with n_judgments there."""
        return (
            self.filter(judgments__topic_id=topic_id, judgments__task=task)
            .annotate(n_judgments=Count("judgments"))
            .order_by("name")
        )


class JudgmentQuerySet(models.QuerySet):
    def grid_for_topic(self, topic_id: int) -> JudgmentQuerySet:
        """One row per (task, judge, sub-question): n judged, n parsed and mean rating."""
        return (
            self.filter(topic_id=topic_id)
            .order_by()
            .values(
                "task",
                "judge_id",
                "judge__name",
                "judge__kind",
                "judge__prompt_version",
                "subquestion_id",
            )
            .annotate(n=Count("pk"), n_rated=Count("rating"), mean=Avg("rating"))
        )

    def per_passage_for_topic(self, topic_id: int) -> JudgmentQuerySet:
        """One row per judged passage of the topic: n judgments and mean rating."""
        return (
            self.filter(topic_id=topic_id, passage__isnull=False)
            .order_by()
            .values("passage_id")
            .annotate(n=Count("pk"), mean=Avg("rating"))
        )
