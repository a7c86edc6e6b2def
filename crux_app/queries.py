"""What the researcher pages show, assembled from a fixed, small number of queries.

Each function takes an already-fetched object and returns a plain dataclass that a template can
walk without touching the database again (no per-row lookups), so page cost stays flat as topics
grow to hundreds of passages and thousands of judgments.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from django.db.models import Prefetch, Q, QuerySet
from django.http import QueryDict

from crux_app.derived_cache import derived
from crux_app.judge_labels import declared_labels
from crux_app.list_paging import ListPage, ListPageForm, list_form, list_page
from crux_app.models import (
    Collection,
    GeneratedOutput,
    Job,
    Judge,
    Judgment,
    OutputContext,
    Passage,
    PassageQrel,
    Run,
    RunEntry,
    SubQuestion,
    Topic,
)

RECENT_JOBS = 10
T = TypeVar("T")


JUDGES = "judges"  # the paging form prefix of the collection page's judge list (topics: none)


@dataclass(frozen=True)
class CollectionPage:
    collection: Collection  # with the counts of Collection.objects.with_counts()
    topics: list[Topic]  # the shown page's topics, annotated by Topic.objects.with_counts()
    runs: list[Run]  # annotated with n_entries, n_topics
    judges: list[Judge]  # the shown page's judges, annotated with n_judgments here
    recent_jobs: list[Job]
    topic_list: ListPage
    judge_list: ListPage


COLLECTION_COUNTS = (
    "n_topics",
    "n_subquestions",
    "n_passages",
    "n_runs",
    "n_outputs",
    "n_judges",
    "n_judgments",
)


def collection_page(
    collection: Collection,
    topic_form: ListPageForm | None = None,
    judge_form: ListPageForm | None = None,
) -> CollectionPage:
    """One page of the collection's topics and judges (valid paging forms; none: the first
    page), its runs and recent jobs, with their counts. Counting reads every row of the
    collection: the counts, runs and judges are cached under the data version of
    ``collection`` as it was read, so read it before calling."""
    collection = counted(collection)
    topic_form = topic_form or _valid(None)
    judge_form = judge_form or _valid(JUDGES)
    topic_list = _topic_list(collection, topic_form)
    judge_list = list_page(judge_form, collection_judge_rows(collection), search=_search_judges)
    runs = _derived(
        collection,
        "run-rows",
        lambda: list(Run.objects.filter(collection=collection).with_entry_counts()),
    )
    return CollectionPage(
        collection=collection,
        topics=_with_counts(topic_list.rows),
        runs=runs,
        judges=judge_list.rows,
        recent_jobs=list(Job.objects.for_collection(collection)[:RECENT_JOBS]),
        topic_list=topic_list,
        judge_list=judge_list,
    )


def _derived(collection: Collection, part: str, compute: Callable[[], T]) -> T:
    """``compute()`` cached under the collection's data version as read (and the code's)."""
    return derived(collection.pk, collection.data_version.hex, part, compute)


def counted(collection: Collection) -> Collection:
    """The collection with the counts ``Collection.objects.with_counts()`` annotates, cached
    under its data version (reading them scans every judgment of the collection)."""
    if all(hasattr(collection, name) for name in COLLECTION_COUNTS):
        return collection

    def count() -> dict[str, int]:
        rows = Collection.objects.filter(pk=collection.pk).with_counts()
        counts = rows.values(*COLLECTION_COUNTS).get()
        # Judges whose labels a method stores outside Judgment (nugget judges) count too.
        counts["n_judges"] = len(collection_judge_rows(collection))
        return counts

    for name, value in _derived(collection, "counts", count).items():
        setattr(collection, name, value)
    return collection


def _valid(prefix: str | None) -> ListPageForm:
    form = list_form(QueryDict(), prefix)
    form.is_valid()
    return form


def search_topics(topics: QuerySet, text: str) -> QuerySet:
    """Topics whose id or request contains ``text`` (any case)."""
    return topics.filter(Q(external_id__icontains=text) | Q(request__icontains=text))


def _topic_list(collection: Collection, form: ListPageForm) -> ListPage:
    """A page of the collection's topic ids, by topic id: sliced from the index without a
    search; with one, the matching ids read in one scan and paged in memory."""
    topics = Topic.objects.filter(collection=collection).order_by("external_id")
    text = form.search_text()
    if text:
        return list_page(form, list(search_topics(topics, text).values_list("pk", flat=True)))
    return list_page(form, topics.values_list("pk", flat=True), count=collection.n_topics)


def _with_counts(topic_ids: list[int]) -> list[Topic]:
    """The page's topics with their counts, in the page's order: counting per topic only for
    the rows shown (the counts' subqueries would otherwise run for every topic)."""
    counted = Topic.objects.filter(pk__in=topic_ids).with_counts().in_bulk()
    return [counted[pk] for pk in topic_ids]


def collection_judge_rows(collection: Collection) -> list[Judge]:
    """The collection's judges by name with n_judgments there (counting reads every judgment
    of the collection: cached under its data version as read)."""
    return _derived(collection, "judge-rows", lambda: _judge_rows(collection))


def _judge_rows(collection: Collection) -> list[Judge]:
    """Judges with judgments (``n_judgments``) or declared labels (``other_labels``: what, how
    many; ``crux_app.judge_labels``) in the collection, by name."""
    judges = {j.pk: j for j in Judge.objects.for_collection(collection.pk)}
    other = declared_labels(collection)
    for judge in Judge.objects.filter(pk__in=set(other) - set(judges)):
        judge.n_judgments = 0
        judges[judge.pk] = judge
    for judge in judges.values():
        judge.other_labels = other.get(judge.pk, [])
    return sorted(judges.values(), key=lambda j: j.name)


def _search_judges(judges: list[Judge], text: str) -> list[Judge]:
    needle = text.casefold()
    return [
        j for j in judges if needle in j.name.casefold() or needle in (j.model_id or "").casefold()
    ]


@dataclass(frozen=True)
class PassageRow:
    passage: Passage
    positions: list[int | None]  # one per run of TopicPage.runs; None = not retrieved
    qrels: list[tuple[str, int]]  # (source, grade)
    n_judgments: int = 0
    mean_rating: float | None = None

    @property
    def best_position(self) -> int | None:
        ranked = [p for p in self.positions if p is not None]
        return min(ranked) if ranked else None


@dataclass(frozen=True)
class JudgeColumn:
    """One judge's totals for one task on one topic."""

    judge_id: int
    name: str
    kind: str
    n: int = 0
    n_rated: int = 0
    prompt_version: str = ""

    @property
    def n_unparsed(self) -> int:
        return self.n - self.n_rated


@dataclass(frozen=True)
class GridCell:
    n: int
    mean: float | None


@dataclass(frozen=True)
class GridRow:
    subquestion: SubQuestion
    cells: list[GridCell | None]  # one per judge column; None = nothing judged yet


@dataclass(frozen=True)
class JudgmentGrid:
    """Judge x sub-question summary of one task's judgments on a topic."""

    task: str
    task_label: str
    judges: list[JudgeColumn]
    rows: list[GridRow]


@dataclass(frozen=True)
class TopicPage:
    topic: Topic
    subquestions: list[SubQuestion]
    runs: list[Run]
    passages: list[PassageRow]
    outputs: list[GeneratedOutput]  # with .context prefetched (passage external ids)
    grids: list[JudgmentGrid] = field(default_factory=list)
    recent_jobs: list[Job] = field(default_factory=list)

    @property
    def n_judgments(self) -> int:
        return sum(j.n for grid in self.grids for j in grid.judges)


def topic_page(topic: Topic) -> TopicPage:
    """Everything the topic page shows: sub-questions, pooled passages, outputs, judgments."""
    subquestions = list(topic.subquestions.all())
    positions: dict[int, dict[int, int]] = defaultdict(dict)  # passage -> run -> position
    for run_id, passage_id, position in RunEntry.objects.ranks_for_topic(topic.pk):
        positions[passage_id][run_id] = position
    run_ids = {run_id for per_run in positions.values() for run_id in per_run}
    runs = list(Run.objects.filter(pk__in=run_ids).order_by("name"))

    qrels: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for passage_id, source, grade in (
        PassageQrel.objects.filter(topic=topic)
        .order_by("source")
        .values_list("passage_id", "source", "grade")
    ):
        qrels[passage_id].append((source, grade))
    judged = {row["passage_id"]: row for row in Judgment.objects.per_passage_for_topic(topic.pk)}
    pooled_ids = set(positions) | set(qrels) | set(judged)
    passages = [
        PassageRow(
            passage=passage,
            positions=[positions[passage.pk].get(run.pk) for run in runs],
            qrels=qrels.get(passage.pk, []),
            n_judgments=judged[passage.pk]["n"] if passage.pk in judged else 0,
            mean_rating=judged[passage.pk]["mean"] if passage.pk in judged else None,
        )
        for passage in Passage.objects.filter(pk__in=pooled_ids).order_by()
    ]
    passages.sort(key=_passage_order)
    return TopicPage(
        topic=topic,
        subquestions=subquestions,
        runs=runs,
        passages=passages,
        outputs=_outputs(topic),
        grids=_judgment_grids(topic, subquestions),
        recent_jobs=list(Job.objects.for_topic(topic)[:RECENT_JOBS]),
    )


def _passage_order(row: PassageRow) -> tuple:
    """Best run position first, then higher qrel grade, then id: the pool's natural reading."""
    best = row.best_position
    top_grade = max((grade for _, grade in row.qrels), default=-1)
    return (best is None, best or 0, -top_grade, row.passage.external_id)


def _outputs(topic: Topic) -> list[GeneratedOutput]:
    context = OutputContext.objects.select_related("passage").only(
        "output_id", "position", "passage__external_id", "passage__has_text"
    )
    return list(
        GeneratedOutput.objects.filter(topic=topic)
        .order_by("system", "external_id")
        .prefetch_related(Prefetch("context", queryset=context))
    )


def _judgment_grids(topic: Topic, subquestions: list[SubQuestion]) -> list[JudgmentGrid]:
    columns: dict[str, dict[int, JudgeColumn]] = defaultdict(dict)
    cells: dict[tuple[str, int, int], GridCell] = {}
    for row in Judgment.objects.grid_for_topic(topic.pk):
        task, judge_id = row["task"], row["judge_id"]
        old = columns[task].get(judge_id) or JudgeColumn(
            judge_id, row["judge__name"], row["judge__kind"], 0, 0, row["judge__prompt_version"]
        )
        columns[task][judge_id] = JudgeColumn(
            judge_id,
            old.name,
            old.kind,
            old.n + row["n"],
            old.n_rated + row["n_rated"],
            old.prompt_version,
        )
        cells[(task, judge_id, row["subquestion_id"])] = GridCell(row["n"], row["mean"])
    labels = dict(Judgment.Task.choices)
    grids = []
    for task in sorted(columns):
        judges = sorted(columns[task].values(), key=lambda j: j.name)
        rows = [
            GridRow(sq, [cells.get((task, j.judge_id, sq.pk)) for j in judges])
            for sq in subquestions
        ]
        grids.append(JudgmentGrid(task, labels.get(task, task), judges, rows))
    return grids
