"""``manage.py workspace`` (create, add, remove, list), the service behind it, and the
``--workspace`` of the import and account commands."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import AuditEvent, Collection, Workspace, WorkspaceMember
from crux_app.roles import RESEARCHER, has_role
from crux_app.workspaces import (
    WorkspaceRefused,
    create_workspace,
    remove_member,
    set_role,
    workspace_for_new_collection,
)

pytestmark = pytest.mark.django_db

Role = WorkspaceMember.Role


def run(*args: str) -> str:
    out = StringIO()
    call_command("workspace", *args, stdout=out)
    return out.getvalue()


def role_of(username: str, workspace: str) -> str | None:
    found = WorkspaceMember.objects.filter(user__username=username, workspace__name=workspace)
    return found.values_list("role", flat=True).first()


@pytest.fixture
def accounts(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="pass-word-1")
        for name in ("olga", "bert", "vera")
    }


def test_create_add_change_remove_and_list(accounts):
    assert "created, olga its manager" in run("create", "team-a", "--owner", "olga")
    assert role_of("olga", "team-a") == Role.MANAGER
    assert "bert added as viewer of team-a" in run("add", "team-a", "bert", "--role", "viewer")
    assert role_of("bert", "team-a") == Role.VIEWER
    assert "bert is now researcher" in run("add", "team-a", "bert", "--role", "researcher")
    assert role_of("bert", "team-a") == Role.RESEARCHER
    assert has_role(accounts["bert"], RESEARCHER)  # a member uses the researcher pages
    listing = run("list")
    assert "team-a (0 collections)" in listing
    assert "  bert\tresearcher" in listing and "  olga\tmanager" in listing
    assert "bert removed from team-a" in run("remove", "team-a", "bert")
    assert role_of("bert", "team-a") is None
    assert "bert" not in run("list", "team-a")


def test_the_last_manager_can_be_neither_removed_nor_demoted(accounts):
    run("create", "team-a", "--owner", "olga")
    with pytest.raises(CommandError, match="olga is the last manager of 'team-a'"):
        run("remove", "team-a", "olga")
    with pytest.raises(CommandError, match="last manager"):
        run("add", "team-a", "olga", "--role", "viewer")
    run("add", "team-a", "bert", "--role", "manager")
    run("add", "team-a", "olga", "--role", "viewer")  # another manager now
    with pytest.raises(CommandError, match="bert is the last manager"):
        run("remove", "team-a", "bert")
    assert role_of("bert", "team-a") == Role.MANAGER


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create", "team-a", "--owner", "nobody"], "no account named 'nobody'"),
        (["create", "bad\nname", "--owner", "olga"], "workspace name must not contain control"),
        (["create", "   ", "--owner", "olga"], "workspace name must not be empty"),
        (["add", "nowhere", "olga", "--role", "viewer"], "no workspace named 'nowhere'"),
        (["add", "team-b", "olga", "--role", "boss"], "invalid choice: 'boss'"),
        (["add", "team-b", "nobody", "--role", "viewer"], "no account named 'nobody'"),
        (["remove", "team-b", "vera"], "vera is not a member of 'team-b'"),
        (["create", "team-b", "--owner", "olga"], "a workspace named 'team-b' exists"),
    ],
)
def test_refusals_say_what_is_wrong(accounts, args, message):
    create_workspace("team-b", accounts["bert"])
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert Workspace.objects.filter(name__in=["team-a", "bad\nname", "   "]).count() == 0


def test_the_service_refuses_an_unknown_role(accounts):
    workspace = create_workspace("team-a", accounts["olga"])
    with pytest.raises(WorkspaceRefused, match="one of manager, researcher, viewer") as refused:
        set_role(workspace, accounts["bert"], "owner")
    assert refused.value.field == "role"
    with pytest.raises(WorkspaceRefused):
        remove_member(workspace, accounts["olga"])


def test_membership_changes_are_in_the_audit_trail(accounts):
    workspace = create_workspace("team-a", accounts["olga"])
    set_role(workspace, accounts["bert"], Role.VIEWER)
    remove_member(workspace, accounts["bert"])
    tables = AuditEvent.objects.filter(table="crux_app_workspacemember")
    kinds = set(tables.values_list("kind", flat=True))
    assert {"workspacemember.insert", "workspacemember.delete"} <= kinds


def test_a_new_collections_workspace_is_the_only_writable_one_or_named(accounts):
    a = create_workspace("team-a", accounts["olga"])
    b = create_workspace("team-b", accounts["vera"])
    bert = accounts["bert"]
    with pytest.raises(WorkspaceRefused, match="no workspace"):
        workspace_for_new_collection(bert, None)
    set_role(a, bert, Role.RESEARCHER)
    assert workspace_for_new_collection(bert, None) == a
    assert workspace_for_new_collection(bert, "team-a") == a
    with pytest.raises(WorkspaceRefused, match="choose one of: team-a$"):
        workspace_for_new_collection(bert, "team-b")  # exists, but not his: not named
    set_role(b, bert, Role.VIEWER)  # readable, not writable
    assert workspace_for_new_collection(bert, None) == a
    set_role(b, bert, Role.RESEARCHER)
    with pytest.raises(WorkspaceRefused, match="name the workspace: one of team-a, team-b"):
        workspace_for_new_collection(bert, None)


def test_import_commands_put_a_new_collection_in_the_workspace_given(accounts, tmp_path):
    create_workspace("team-a", accounts["olga"])
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tfloods in 1998\n")
    call_command("import_topics", "--collection", "c1", str(topics), stdout=StringIO())
    assert Collection.objects.get(name="c1").workspace.name == "default"
    args = ["--collection", "c2", "--workspace", "team-a", str(topics)]
    call_command("import_topics", *args, stdout=StringIO())
    assert Collection.objects.get(name="c2").workspace.name == "team-a"
    # An existing collection stays where it is; naming another workspace is refused.
    call_command("import_topics", "--collection", "c2", str(topics), stdout=StringIO())
    with pytest.raises(CommandError, match="collection 'c1' is in workspace 'default'"):
        call_command("import_topics", "--collection", "c1", "--workspace", "team-a", str(topics))
    with pytest.raises(CommandError, match="no workspace named 'nowhere'"):
        call_command("import_topics", "--collection", "c3", "--workspace", "nowhere", str(topics))
    assert not Collection.objects.filter(name="c3").exists()


def test_an_archive_is_restored_into_the_workspace_given(accounts, tmp_path):
    create_workspace("team-a", accounts["olga"])
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tfloods in 1998\n")
    call_command("import_topics", "--collection", "c1", str(topics), stdout=StringIO())
    archive = tmp_path / "c1.tar.gz"
    call_command(
        "export_collection", "--collection", "c1", "--out", str(archive), stdout=StringIO()
    )
    args = [str(archive), "--as", "c1-copy", "--workspace", "team-a"]
    call_command("import_collection", *args, stdout=StringIO())
    assert Collection.objects.get(name="c1-copy").workspace.name == "team-a"
    assert set(Workspace.objects.values_list("name", flat=True)) == {"default", "team-a"}


def test_create_researcher_joins_the_workspace_given(accounts):
    create_workspace("team-a", accounts["olga"])
    args = ["rosa", "--password", "long-enough-1", "--workspace", "team-a"]
    call_command("create_researcher", *args, stdout=StringIO())
    assert role_of("rosa", "team-a") == Role.RESEARCHER
    assert role_of("rosa", "default") is None
    with pytest.raises(CommandError, match="no workspace named 'nowhere'"):
        call_command("create_researcher", "rosa", "--password", "x" * 9, "--workspace", "nowhere")
    # Run again, a manager stays one (never lowered).
    set_role(Workspace.objects.get(name="team-a"), accounts["olga"], Role.MANAGER)
    call_command("create_researcher", "olga", "--password", "long-enough-1", "--workspace",
                 "team-a", stdout=StringIO())  # fmt: skip
    assert role_of("olga", "team-a") == Role.MANAGER
