"""import_crux's COPY-and-merge path: same rows as the ORM path, idempotent re-imports, changed
ratings updated in place, bad lines after several COPY chunks, and the set-based key checks."""

import pytest
from django.db import IntegrityError, connection, transaction

from crux_app.dataio import rating_vectors, reference_checks, staged_upsert
from crux_app.dataio.errors import ImportFailure
from crux_app.dataio.imports.crux import import_crux
from crux_app.dataio.reference_checks import may_skip_row_triggers
from crux_app.dataio.staged_upsert import StagedUpsert
from crux_app.models import Judgment, Passage, PassageQrel, SubtopicQrel, Topic

from .importer_inputs import hub_release, read_jsonl, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


def _stored(collection: str) -> dict[str, set]:
    """Every imported row of ``collection``, named by external ids (pks differ per import)."""
    topics = {"topic__collection__name": collection}
    return {
        "judgments": set(
            Judgment.objects.filter(**topics).values_list(
                "topic__external_id",
                "subquestion__position",
                "passage__external_id",
                "output__external_id",
                "task",
                "rating",
                "rationale",
            )
        ),
        "passages": set(
            Passage.objects.filter(collection__name=collection).values_list(
                "external_id", "text", "has_text"
            )
        ),
        "qrels": set(
            PassageQrel.objects.filter(**topics).values_list(
                "topic__external_id", "passage__external_id", "grade", "source"
            )
        ),
        "subtopic qrels": set(
            SubtopicQrel.objects.filter(**topics).values_list(
                "topic__external_id",
                "subquestion__position",
                "passage__external_id",
                "relevant",
            )
        ),
    }


def _without_copy(monkeypatch) -> None:
    """Take the ORM path the SQLite demo takes."""
    monkeypatch.setattr(staged_upsert, "uses_copy", lambda: False)
    monkeypatch.setattr(rating_vectors, "uses_copy", lambda: False)


def _judgements(root):
    return root / "ranking_3" / "testb_oracle-passages_judgements.jsonl"


def test_copy_path_and_orm_path_store_the_same_rows(tmp_path, monkeypatch):
    root = hub_release(tmp_path / "crux")
    copied = import_crux("copied", root, split="testb", tau=3)
    _without_copy(monkeypatch)
    orm = import_crux("orm", root, split="testb", tau=3)

    assert copied.counts == orm.counts
    assert _stored("copied") == _stored("orm")
    assert len(_stored("copied")["judgments"]) == 24


def test_checked_triggers_path_stores_the_same_rows(tmp_path, monkeypatch):
    root = hub_release(tmp_path / "crux")
    import_crux("set-based", root, split="testb", tau=3)
    monkeypatch.setattr(reference_checks, "may_skip_row_triggers", lambda model: False)
    import_crux("per-row", root, split="testb", tau=3)
    assert _stored("set-based") == _stored("per-row")


def test_identical_reimport_rewrites_no_row(tmp_path):
    root = hub_release(tmp_path / "crux")
    import_crux("hub", root, split="testb", tau=3)
    tables = [Judgment, PassageQrel, SubtopicQrel, Passage]

    def row_versions():
        # ctid moves when PostgreSQL rewrites a row, even to the same values.
        with connection.cursor() as cursor:
            versions = {}
            for model in tables:
                cursor.execute(f"SELECT id, ctid::text FROM {model._meta.db_table}")
                versions[model.__name__] = dict(cursor.fetchall())
            return versions

    before, counts = row_versions(), row_counts()
    import_crux("hub", root, split="testb", tau=3)
    assert row_counts() == counts
    assert row_versions() == before


def test_reimport_with_changed_ratings_updates_only_those(tmp_path):
    root = hub_release(tmp_path / "crux")
    import_crux("hub", root, split="testb", tau=3)
    untouched = dict(Judgment.objects.values_list("id", "updated_at"))
    lines = read_jsonl(_judgements(root))
    assert lines[1]["pid"] == "t1:0#1"
    lines[1]["rating"] = [5, 3, 5]  # was [1, 3, 0]: positions 0 and 2 change
    write_jsonl(_judgements(root), lines)
    counts = row_counts()

    import_crux("hub", root, split="testb", tau=3)

    assert row_counts() == counts
    line = list(
        Judgment.objects.filter(passage__external_id="t1:0#1").order_by("subquestion__position")
    )
    assert [j.rating for j in line] == [5, 3, 5]
    after = dict(Judgment.objects.values_list("id", "updated_at"))
    moved = {pk for pk, updated in after.items() if updated != untouched[pk]}
    assert moved == {line[0].pk, line[2].pk}


def test_bad_line_after_several_copy_chunks_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(staged_upsert, "CHUNK", 2)
    monkeypatch.setattr(rating_vectors, "CHUNK", 2)
    root = hub_release(tmp_path / "crux")
    lines = read_jsonl(_judgements(root))
    lines[6]["rating"] = [0, 1, 6]
    write_jsonl(_judgements(root), lines)
    before = row_counts()
    with pytest.raises(ImportFailure) as error:
        import_crux("hub", root, split="testb", tau=3)
    assert str(error.value) == f"{_judgements(root)}:7: rating[2] must be 0-5, got 6"
    assert row_counts() == before


def test_small_chunks_store_every_row(tmp_path, monkeypatch):
    root = hub_release(tmp_path / "crux")
    import_crux("whole", root, split="testb", tau=3)
    monkeypatch.setattr(staged_upsert, "CHUNK", 2)
    monkeypatch.setattr(rating_vectors, "CHUNK", 2)
    import_crux("chunked", root, split="testb", tau=3)
    assert _stored("chunked") == _stored("whole")


def test_triggers_are_back_on_after_the_import(tmp_path):
    assert may_skip_row_triggers(Judgment)  # the test database role is a superuser
    import_crux("hub", hub_release(tmp_path / "crux"), split="testb", tau=3)
    with connection.cursor() as cursor:
        cursor.execute("SHOW session_replication_role")
        assert cursor.fetchone() == ("origin",)
    # A row referencing a missing passage still fails at its foreign key.
    qrel = PassageQrel.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        PassageQrel.objects.filter(pk=qrel.pk).update(passage_id=10**12)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_a_staged_row_naming_a_missing_parent_fails_like_its_foreign_key(tmp_path):
    import_crux("hub", hub_release(tmp_path / "crux"), split="testb", tau=3)
    topic = Topic.objects.get(external_id="t1")
    qrels = StagedUpsert(
        PassageQrel,
        ["topic_id", "passage_id", "grade", "source"],
        unique=["topic_id", "passage_id", "source"],
        update=["grade"],
    )
    qrels.add((topic.pk, 10**12, 1, "x"))
    missing = "1 row\\(s\\) referenced by crux_app_passageqrel.passage_id do not exist"
    with pytest.raises(IntegrityError, match=missing), transaction.atomic():
        qrels.merge()


def test_a_table_with_its_own_trigger_keeps_per_row_checks():
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION test_noop() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RETURN NEW; END $$"
        )
        cursor.execute(
            f"CREATE TRIGGER test_noop BEFORE INSERT ON {PassageQrel._meta.db_table} "
            "FOR EACH ROW EXECUTE FUNCTION test_noop()"
        )
    assert not may_skip_row_triggers(PassageQrel)
    assert may_skip_row_triggers(SubtopicQrel)


def test_reimport_restores_rows_deleted_since(tmp_path):
    root = hub_release(tmp_path / "crux")
    import_crux("hub", root, split="testb", tau=3)
    complete = _stored("hub")
    Judgment.objects.filter(passage__external_id="t2:0#0").delete()
    SubtopicQrel.objects.filter(passage__external_id="t1:1#2").delete()
    PassageQrel.objects.filter(topic__external_id="t2").delete()
    assert _stored("hub") != complete

    import_crux("hub", root, split="testb", tau=3)
    assert _stored("hub") == complete
