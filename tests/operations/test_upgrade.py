"""An upgrade: a database at the schema of an earlier commit (operations.schema_states), holding
a collection written through that state's models, migrates to today with its rows and its
leaderboard's numbers unchanged."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection

from crux_app.models import Collection, WorkspaceMember
from crux_app.models.workspace import DEFAULT_WORKSPACE
from crux_app.roles import RESEARCHER
from operations.schema_states import (
    migrate_to_earlier_state,
    migrate_to_today,
    snapshot_rows,
    write_rows,
)
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db(transaction=True)


def _leaderboard(*args: str) -> list[dict]:
    cache.clear()  # numbers computed now, not a cached table of the first run
    out = io.StringIO()
    call_command("evaluate", "--collection", "hand", *args, stdout=out)
    return json.loads(out.getvalue())


def _tables() -> set[str]:
    return set(connection.introspection.table_names())


def _researcher_of_the_earlier_state():
    """A researcher as the earlier state made one: an account in the group, no workspace."""
    user = get_user_model().objects.create_user("earlier", password="earlier-pass-1")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHER)[0])
    return user


def test_an_earlier_schema_with_a_collection_migrates_to_today_unchanged(settings):
    settings.TOKENIZER_MODEL = "whitespace"
    make_hand_collection()
    expected = {args: _leaderboard(*args) for args in [(), ("--k", "2", "--judge", "human-1")]}
    numbers = [v for r in expected[()] for k, v in r.items() if k != "run" and v]
    assert len(expected[()]) >= 2 and numbers  # runs with numbers to compare
    rows = snapshot_rows(["crux_app"])
    call_command("flush", "--noinput")
    try:
        historical = migrate_to_earlier_state()
        assert "crux_app_jobshard" not in _tables()  # added after the earlier commit
        assert "webhooks_endpoint" not in _tables()
        written = write_rows(historical, rows)
        researcher = _researcher_of_the_earlier_state()
    finally:
        migrate_to_today()
    assert {"crux_app_jobshard", "webhooks_endpoint"} <= _tables()
    assert written["crux_app.judgment"] == len(rows["crux_app.judgment"]) > 0
    after = snapshot_rows(["crux_app"])
    for label, count in written.items():
        assert len(after[label]) == count, label
    assert {args: _leaderboard(*args) for args in expected} == expected
    # Nobody loses access: the collection is in `default`, whose researcher the account now is.
    hand = Collection.objects.get(name="hand")
    assert hand.workspace.name == DEFAULT_WORKSPACE
    member = WorkspaceMember.objects.get(user=researcher)
    assert (member.workspace_id, member.role) == (hand.workspace_id, "researcher")
    assert list(Collection.objects.visible_to(researcher, write=True)) == [hand]
