"""The audit trail's write paths: an ORM save, the COPY import and its staged upserts, a
deletion, tokens and webhooks, each recorded at the database with old and new values and the
acting context; and the trail is append-only (the ORM and raw SQL both refused)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from api.tokens import issue_token, revoke_token
from crux_app.audit.context import audit_context
from crux_app.dataio.imports.crux import import_crux
from crux_app.dataio.staged_upsert import StagedUpsert
from crux_app.models import AuditEvent, Collection, Judgment, PassageQrel
from crux_app.models.audit import AppendOnly
from webhooks.models import Endpoint

from .importer_inputs import hub_release

pytestmark = pytest.mark.django_db


def events(kind: str, **filters) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(kind=kind, **filters).order_by("id"))


def test_an_orm_save_records_old_and_new_value_and_who(tmp_path, researcher):
    import_crux("hub", hub_release(tmp_path / "crux"), split="testb", tau=3)
    judgment = Judgment.objects.filter(topic__collection__name="hub").first()
    old_rating = judgment.rating
    with audit_context(user_id=researcher.pk, username="rita", origin="web", path="/x/"):
        judgment.rating = 0 if old_rating else 1
        judgment.save()
    [event] = events("judgment.update", row_id=judgment.pk)
    assert event.old["rating"] == old_rating and event.new["rating"] == judgment.rating
    assert (event.user_id, event.username, event.origin) == (researcher.pk, "rita", "web")
    assert event.context == {"path": "/x/"}
    assert event.collection_id == Collection.objects.get(name="hub").pk


def test_a_copy_import_records_every_row_and_the_import(tmp_path):
    root = hub_release(tmp_path / "crux")
    with audit_context(origin="command"):
        call_command(
            "import_crux",
            "--collection",
            "hub",
            "--split",
            "testb",
            "--tau",
            "3",
            str(root),
            stdout=StringIO(),
        )
    stored = Judgment.objects.filter(topic__collection__name="hub")
    inserted = events("judgment.insert")
    assert len(inserted) == stored.count() > 0
    assert {e.row_id for e in inserted} == set(stored.values_list("pk", flat=True))
    assert {e.origin for e in inserted} == {"command"}
    [record] = events("import")
    assert record.detail["format"] == "crux" and record.detail["file"] == str(root)
    rows = record.detail["rows"]
    assert rows["passage judgments"] + rows["report judgments"] == stored.count()
    assert record.collection_id == Collection.objects.get(name="hub").pk


def test_a_staged_upsert_records_the_rows_it_changes_only(tmp_path):
    import_crux("hub", hub_release(tmp_path / "crux"), split="testb", tau=3)
    qrel = PassageQrel.objects.filter(topic__collection__name="hub").first()
    last = AuditEvent.objects.order_by("-id").values_list("id", flat=True).first()
    upsert = StagedUpsert(
        PassageQrel,
        ["topic_id", "passage_id", "grade", "source"],
        unique=["topic_id", "passage_id", "source"],
        update=["grade"],
    )
    upsert.add((qrel.topic_id, qrel.passage_id, qrel.grade + 1, qrel.source))
    with transaction.atomic():
        upsert.merge()
    [event] = AuditEvent.objects.filter(pk__gt=last)
    assert event.kind == "passageqrel.update" and event.row_id == qrel.pk
    assert (event.old["grade"], event.new["grade"]) == (qrel.grade, qrel.grade + 1)


def test_a_deletion_records_the_deleted_rows(tmp_path):
    import_crux("hub", hub_release(tmp_path / "crux"), split="testb", tau=3)
    collection = Collection.objects.get(name="hub")
    judgments = Judgment.objects.filter(topic__collection=collection).count()
    pk = collection.pk
    collection.delete()
    deleted = events("judgment.delete", collection_id=pk)
    assert len(deleted) == judgments and all(e.new is None and e.old for e in deleted)
    [gone] = events("collection.delete")
    assert gone.old["name"] == "hub" and gone.row_id == pk


def test_tokens_and_webhooks_created_and_revoked_are_recorded_without_secrets(researcher):
    row, token = issue_token(researcher, "laptop")
    revoke_token(researcher, row.pk)
    [created] = events("apitoken.insert", row_id=row.pk)
    [revoked] = events("apitoken.update", row_id=row.pk)
    assert created.new["name"] == "laptop" and "digest" not in created.new
    assert revoked.old["revoked_at"] is None and revoked.new["revoked_at"] is not None
    endpoint = Endpoint.objects.create(
        url="http://127.0.0.1:9/hook", secret="s3cret", created_by=researcher
    )
    Endpoint.objects.filter(pk=endpoint.pk).update(active=False)
    endpoint.delete()
    kinds = [e.kind for e in AuditEvent.objects.filter(table="webhooks_endpoint").order_by("id")]
    assert kinds == ["endpoint.insert", "endpoint.update", "endpoint.delete"]
    assert "s3cret" not in str(list(AuditEvent.objects.values_list("old", "new")))


def test_a_token_in_use_is_not_recorded_at_each_request(researcher):
    row, token = issue_token(researcher, "laptop")
    from api.models import ApiToken

    ApiToken.objects.filter(pk=row.pk).update(last_used_at="2026-01-01T00:00:00Z")
    assert events("apitoken.update") == []


def test_the_trail_is_append_only_for_the_orm_and_raw_sql(researcher):
    issue_token(researcher, "laptop")
    event = AuditEvent.objects.first()
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    for statement in (
        "UPDATE crux_app_auditevent SET username = 'mallory'",
        "DELETE FROM crux_app_auditevent",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).update(username="mallory")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).delete()
    assert AuditEvent.objects.get(pk=event.pk).username == event.username
