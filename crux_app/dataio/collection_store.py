"""Bulk upserts of a collection's content: topics, sub-questions, passages, runs, outputs.

Importers call these inside their own ``transaction.atomic()``; every write is keyed on the
model's unique constraint, so re-running the same import creates no duplicates.
"""

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.db.models import Count

from crux_app.collection_names import collection_name_problem
from crux_app.data_version import bump_before_writes
from crux_app.models import (
    Collection,
    GeneratedOutput,
    OutputContext,
    Passage,
    Run,
    RunEntry,
    SubQuestion,
    Topic,
    Workspace,
)

from .errors import ImportFailure
from .pg_copy import insert_rows, rows_by_key, upsert_rows
from .staged_upsert import StagedUpsert

BATCH_SIZE = 5000

# The workspace a collection an importer creates goes to (None: the model's default,
# ``default``); set around an import by the command's --workspace, the upload page's choice.
_NEW_COLLECTIONS_IN: ContextVar[int | None] = ContextVar("new_collections_in", default=None)


@contextmanager
def new_collections_in(workspace: Workspace | None) -> Iterator[None]:
    """Collections that the imports inside create go to ``workspace`` (None: ``default``)."""
    token = _NEW_COLLECTIONS_IN.set(workspace.pk if workspace is not None else None)
    try:
        yield
    finally:
        _NEW_COLLECTIONS_IN.reset(token)


@dataclass(frozen=True)
class SubQuestionRef:
    id: int
    position: int
    text: str
    is_placeholder: bool


@dataclass(frozen=True)
class StoredOutput:
    """What decides whether a newly read output is the same as one already stored."""

    id: int
    system: str
    topic_id: int
    text: str
    docids: tuple[str, ...]


@dataclass(frozen=True)
class RunLine:
    topic_id: int
    passage_id: int
    rank: int
    score: float
    line_order: int


class CollectionStore:
    """One collection's rows, written in bulk, with external-id -> pk maps kept as it goes."""

    def __init__(self, collection: Collection, created: bool = False) -> None:
        self.collection = collection
        self.created = created
        bump_before_writes(collection.pk)  # importers write in the transaction they open us in
        self._topic_ids: dict[str, int] | None = None
        self._passage_ids: dict[str, int] | None = None
        self._subquestions: dict[int, list[SubQuestionRef]] = {}

    @classmethod
    def open(
        cls, name: str, kind: str = Collection.Kind.REPORT, label: str = "collection"
    ) -> "CollectionStore":
        """The named collection, created with ``kind`` (in the workspace of
        ``new_collections_in``) when it does not exist yet; a name no collection may have fails
        the import (``label`` names the input in the message)."""
        problem = collection_name_problem(name)
        if problem is not None:
            raise ImportFailure(label, None, problem)
        defaults: dict[str, object] = {"kind": kind}
        if (workspace_id := _NEW_COLLECTIONS_IN.get()) is not None:
            defaults["workspace_id"] = workspace_id
        collection, created = Collection.objects.get_or_create(name=name, defaults=defaults)
        return cls(collection, created)

    @classmethod
    def existing(cls, name: str) -> "CollectionStore | None":
        collection = Collection.objects.filter(name=name).first()
        return cls(collection) if collection else None

    @classmethod
    def required(cls, name: str, label: str) -> "CollectionStore":
        """The store of an existing collection; an import into a missing one fails."""
        store = cls.existing(name)
        if store is None:
            raise ImportFailure(
                label, None, f"collection '{name}' does not exist; import its topics first"
            )
        return store

    # Topics and sub-questions -------------------------------------------------------------

    @property
    def topic_ids(self) -> dict[str, int]:
        if self._topic_ids is None:
            self._topic_ids = dict(
                Topic.objects.filter(collection=self.collection).values_list("external_id", "id")
            )
        return self._topic_ids

    def require_topics(self, label: str) -> None:
        """Refuse an import that would leave its collection without a topic (a new collection
        from input that holds none)."""
        if not self.topic_ids:
            raise ImportFailure(
                label, None, f"no topics: collection '{self.collection.name}' would have none"
            )

    def upsert_topics(self, topics: Sequence[Topic], update_fields: list[str]) -> None:
        """Insert or update ``topics`` (unsaved, collection set here) by external id."""
        for topic in topics:
            topic.collection = self.collection
        Topic.objects.bulk_create(
            topics,
            update_conflicts=True,
            unique_fields=["collection", "external_id"],
            update_fields=update_fields,
            batch_size=BATCH_SIZE,
        )
        for topic in topics:
            self.topic_ids[topic.external_id] = topic.pk

    def subquestion_counts(self, topic_ids: Iterable[int]) -> dict[int, int]:
        """How many sub-question positions each of these topics already has."""
        rows = (
            SubQuestion.objects.filter(topic_id__in=list(topic_ids))
            .values("topic_id")
            .annotate(n=Count("id"))
            .values_list("topic_id", "n")
        )
        return dict(rows)

    def upsert_subquestions(self, questions: dict[int, list[str | None]]) -> int:
        """Write each topic's ordered list; ``None`` positions become placeholders."""
        rows = [
            (topic_id, position, text or "", text is None)
            for topic_id, texts in questions.items()
            for position, text in enumerate(texts)
        ]
        staged = StagedUpsert(
            SubQuestion,
            ["topic_id", "position", "text", "is_placeholder"],
            unique=["topic_id", "position"],
            update=["text", "is_placeholder"],
        )
        for row in rows:
            staged.add(row)
        staged.merge()
        stored = rows_by_key(
            SubQuestion, ["topic_id", "position", "id"], "topic_id", list(questions)
        )
        ids = {(topic_id, position): pk for topic_id, position, pk in stored}
        for topic_id in questions:
            self._subquestions[topic_id] = []
        for topic_id, position, text, placeholder in rows:
            self._subquestions[topic_id].append(
                SubQuestionRef(ids[topic_id, position], position, text, placeholder)
            )
        return len(rows)

    def subquestions(self, topic_id: int) -> list[SubQuestionRef]:
        """The topic's sub-questions in position order (loaded once per topic)."""
        if topic_id not in self._subquestions:
            self.load_subquestions([topic_id])
        return self._subquestions[topic_id]

    def load_subquestions(self, topic_ids: Iterable[int]) -> None:
        wanted = [t for t in topic_ids if t not in self._subquestions]
        for topic_id in wanted:
            self._subquestions[topic_id] = []
        rows = SubQuestion.objects.filter(topic_id__in=wanted).order_by("topic_id", "position")
        for sq_id, topic_id, position, text, placeholder in rows.values_list(
            "id", "topic_id", "position", "text", "is_placeholder"
        ):
            self._subquestions[topic_id].append(SubQuestionRef(sq_id, position, text, placeholder))

    # Passages ---------------------------------------------------------------------------

    @property
    def passage_ids(self) -> dict[str, int]:
        if self._passage_ids is None:
            self._passage_ids = dict(
                Passage.objects.filter(collection=self.collection).values_list("external_id", "id")
            )
        return self._passage_ids

    def reload_passage_ids(self) -> None:
        """Read the id map again after passages were written around this store."""
        self._passage_ids = None

    def upsert_passages(self, passages: Iterable[tuple[str, str]]) -> int:
        """Insert or update (external id, text) pairs; a stored text-less passage gains its text."""
        rows = [(self.collection.pk, pid, text, True) for pid, text in passages]
        for start in range(0, len(rows), BATCH_SIZE):
            ids = upsert_rows(
                Passage,
                ["collection_id", "external_id", "text", "has_text"],
                rows[start : start + BATCH_SIZE],
                unique=["collection_id", "external_id"],
                update=["text", "has_text"],
            )
            self.passage_ids.update((pid, pk) for (_, pid), pk in ids.items())
        return len(rows)

    def ensure_passages(self, external_ids: Iterable[str]) -> int:
        """Create text-less passages for ids the collection lacks; returns how many it made."""
        missing = list(dict.fromkeys(pid for pid in external_ids if pid not in self.passage_ids))
        insert_rows(
            Passage,
            ["collection_id", "external_id", "text", "has_text"],
            ((self.collection.pk, pid, "", False) for pid in missing),
        )
        self.passage_ids.update(
            rows_by_key(
                Passage,
                ["external_id", "id"],
                "external_id",
                missing,
                collection_id=self.collection.pk,
            )
        )
        return len(missing)

    # Runs -------------------------------------------------------------------------------

    def replace_run(
        self,
        name: str,
        lines: Sequence[RunLine],
        metadata: dict,
        scope_topics: Iterable[int] | None = None,
    ) -> Run:
        """Create or reuse the run ``name`` and make its entries exactly ``lines``.

        With ``scope_topics``, only those topics' entries are replaced; others are kept.
        """
        run, _ = Run.objects.update_or_create(
            collection=self.collection, name=name, defaults={"metadata": metadata}
        )
        stale = RunEntry.objects.filter(run=run)
        if scope_topics is not None:
            stale = stale.filter(topic_id__in=list(scope_topics))
        stale.delete()
        insert_rows(
            RunEntry,
            ["run_id", "topic_id", "passage_id", "rank", "score", "line_order"],
            (
                (run.pk, line.topic_id, line.passage_id, line.rank, line.score, line.line_order)
                for line in lines
            ),
        )
        return run

    # Generated outputs ------------------------------------------------------------------

    def stored_outputs(self, external_ids: Iterable[str]) -> dict[str, StoredOutput]:
        """The stored outputs among ``external_ids``, with their context passage ids."""
        outputs = GeneratedOutput.objects.filter(
            collection=self.collection, external_id__in=list(external_ids)
        ).values_list("id", "external_id", "system", "topic_id", "text")
        by_id = {row[0]: row for row in outputs}
        docids: dict[int, list[str]] = {pk: [] for pk in by_id}
        contexts = OutputContext.objects.filter(output_id__in=list(by_id)).order_by(
            "output_id", "position"
        )
        for output_id, pid in contexts.values_list("output_id", "passage__external_id"):
            docids[output_id].append(pid)
        return {
            ext: StoredOutput(pk, system, topic_id, text, tuple(docids[pk]))
            for pk, ext, system, topic_id, text in by_id.values()
        }

    def upsert_outputs(
        self, outputs: Sequence[GeneratedOutput], contexts: dict[str, list[str]]
    ) -> dict[str, int]:
        """Write outputs by external id and make their contexts exactly ``contexts[ext]``.

        Context passages must already exist (``ensure_passages``).
        """
        for output in outputs:
            output.collection = self.collection
        GeneratedOutput.objects.bulk_create(
            outputs,
            update_conflicts=True,
            unique_fields=["collection", "external_id"],
            update_fields=["topic", "system", "kind", "text", "context_type", "metadata"],
            batch_size=BATCH_SIZE,
        )
        ids = {output.external_id: output.pk for output in outputs}
        OutputContext.objects.filter(output_id__in=list(ids.values())).delete()
        OutputContext.objects.bulk_create(
            [
                OutputContext(output_id=ids[ext], passage_id=self.passage_ids[pid], position=i)
                for ext, pids in contexts.items()
                for i, pid in enumerate(pids)
            ],
            batch_size=BATCH_SIZE,
        )
        return ids
