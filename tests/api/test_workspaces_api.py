"""``/api/v1/workspaces/``: list, create (superusers), members, set a role, remove (managers);
``POST /api/v1/collections/``'s workspace; tokens narrowed to one workspace or to reading."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from api.models import ApiToken
from api.tokens import issue_token
from crux_app.models import Collection, WorkspaceMember
from crux_app.roles import RESEARCHER, add_role
from crux_app.workspaces import create_workspace, remove_member, set_role

from .conftest import TokenClient

pytestmark = pytest.mark.django_db

Role = WorkspaceMember.Role
WORKSPACES = "/api/v1/workspaces/"
COLLECTIONS = "/api/v1/collections/"


def members_url(workspace: str, username: str = "") -> str:
    return f"{WORKSPACES}{workspace}/members/" + (f"{username}/" if username else "")


def as_user(user, **narrowing) -> TokenClient:
    return TokenClient(issue_token(user, "tests", **narrowing)[1])


@pytest.fixture
def people(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="pass-word-1")
        for name in ("maria", "rudi", "vic", "nora")
    }


@pytest.fixture
def team(people):
    """team-a: maria manages, rudi researches, vic views; nora is a researcher of `default`."""
    workspace = create_workspace("team-a", people["maria"])
    set_role(workspace, people["rudi"], Role.RESEARCHER)
    set_role(workspace, people["vic"], Role.VIEWER)
    add_role(people["nora"], RESEARCHER)
    return workspace


def test_the_list_holds_your_workspaces_with_your_role(people, team):
    rows = as_user(people["vic"]).get(WORKSPACES).json()["results"]
    assert [(r["name"], r["role"], r["members"]) for r in rows] == [("team-a", "viewer", 3)]
    names = [r["name"] for r in as_user(people["nora"]).get(WORKSPACES).json()["results"]]
    assert names == ["default"]


def test_only_a_superuser_creates_a_workspace(people, team, django_user_model):
    refused = as_user(people["maria"]).post(WORKSPACES, {"name": "team-b"}, "application/json")
    assert refused.status_code == 403 and "superusers" in refused.json()["detail"]
    root = django_user_model.objects.create_superuser("root", password="root-pass-1")
    api = as_user(root)
    made = api.post(WORKSPACES, {"name": "team-b", "owner": "rudi"}, "application/json")
    assert made.status_code == 201
    assert made.json()["name"] == "team-b" and made.json()["members"] == 1
    assert as_user(people["rudi"]).get(members_url("team-b")).json()["results"][0]["role"] == (
        "manager"
    )
    for body, field in [
        ({"name": "team-b"}, "name"),
        ({"name": "bad\nname"}, "name"),
        ({"name": "c", "owner": "ghost"}, "owner"),
        ({}, "name"),
    ]:
        response = api.post(WORKSPACES, body, "application/json")
        assert response.status_code == 400 and field in response.json()["errors"], body
    # A superuser's read-only token creates nothing.
    assert (
        as_user(root, read_only=True)
        .post(WORKSPACES, {"name": "z"}, "application/json")
        .status_code
        == 403
    )


def test_members_are_readable_by_members_and_404_for_others(people, team):
    rows = as_user(people["vic"]).get(members_url("team-a")).json()["results"]
    assert {(r["username"], r["role"]) for r in rows} == {
        ("maria", "manager"), ("rudi", "researcher"), ("vic", "viewer"),
    }  # fmt: skip
    assert as_user(people["nora"]).get(members_url("team-a")).status_code == 404
    assert as_user(people["nora"]).get(members_url("no-such")).status_code == 404


def test_a_manager_sets_roles_and_removes_members(people, team):
    manager = as_user(people["maria"])
    added = manager.put(members_url("team-a", "nora"), {"role": "viewer"}, "application/json")
    assert added.status_code == 201 and added.json()["role"] == "viewer"
    changed = manager.put(members_url("team-a", "nora"), {"role": "researcher"}, "application/json")
    assert changed.status_code == 200 and changed.json()["role"] == "researcher"
    assert manager.delete(members_url("team-a", "nora")).status_code == 204
    assert not team.members.filter(user=people["nora"]).exists()
    assert manager.delete(members_url("team-a", "nora")).status_code == 404
    last = manager.delete(members_url("team-a", "maria"))
    assert last.status_code == 400 and "last manager" in last.json()["detail"]
    demoted = manager.put(members_url("team-a", "maria"), {"role": "viewer"}, "application/json")
    assert demoted.status_code == 400
    bad = manager.put(members_url("team-a", "rudi"), {"role": "boss"}, "application/json")
    assert bad.status_code == 400 and "role" in bad.json()["errors"]
    ghost = manager.put(members_url("team-a", "ghost"), {"role": "viewer"}, "application/json")
    assert ghost.status_code == 400 and "username" in ghost.json()["errors"]


@pytest.mark.parametrize(("who", "status"), [("rudi", 403), ("vic", 403), ("nora", 404)])
def test_others_cannot_change_members(people, team, who, status):
    api = as_user(people[who])
    assert (
        api.put(members_url("team-a", who), {"role": "manager"}, "application/json").status_code
        == status
    )
    assert api.delete(members_url("team-a", "maria")).status_code == status
    assert team.members.get(user=people["maria"]).role == Role.MANAGER


def test_a_new_collection_goes_to_the_named_or_the_only_writable_workspace(people, team):
    rudi = as_user(people["rudi"])
    made = rudi.post(COLLECTIONS, {"name": "c1"}, "application/json")
    assert made.status_code == 201 and made.json()["workspace"] == "team-a"
    other = create_workspace("team-b", people["maria"])
    set_role(other, people["rudi"], Role.RESEARCHER)
    create_workspace("secret-team", people["nora"])
    refused = rudi.post(COLLECTIONS, {"name": "c2"}, "application/json")
    assert refused.status_code == 400
    assert refused.json()["errors"]["workspace"] == ["name the workspace: one of team-a, team-b"]
    hidden = rudi.post(COLLECTIONS, {"name": "c2", "workspace": "secret-team"}, "application/json")
    assert hidden.status_code == 400
    assert "secret-team" in hidden.json()["detail"]  # the name he sent, not a listing
    assert "choose one of: team-a, team-b" in hidden.json()["detail"]
    made = rudi.post(COLLECTIONS, {"name": "c2", "workspace": "team-b"}, "application/json")
    assert made.status_code == 201 and Collection.objects.get(name="c2").workspace == other
    viewer = as_user(people["vic"]).post(COLLECTIONS, {"name": "c3"}, "application/json")
    assert viewer.status_code == 400 and "no workspace" in viewer.json()["detail"]
    assert not Collection.objects.filter(name="c3").exists()


def test_a_read_only_token_reads_and_is_refused_every_write(people, team):
    api = as_user(people["rudi"], read_only=True)
    assert api.get(WORKSPACES).status_code == 200
    refused = api.post(COLLECTIONS, {"name": "c1", "workspace": "team-a"}, "application/json")
    assert refused.status_code == 403
    assert "read-only" in refused.json()["detail"]
    assert not Collection.objects.filter(name="c1").exists()
    assert (
        as_user(people["maria"], read_only=True).delete(members_url("team-a", "vic")).status_code
        == 403
    )
    assert team.members.filter(user=people["vic"]).exists()


def test_a_narrowed_token_sees_only_its_workspace(people, team):
    Collection.objects.create(name="in-team", workspace=team)
    Collection.objects.create(name="in-default")
    add_role(people["rudi"], RESEARCHER)  # rudi is in `default` too
    wide = as_user(people["rudi"])
    names = {c["name"] for c in wide.get(COLLECTIONS).json()["results"]}
    assert names == {"in-team", "in-default"}
    narrow = as_user(people["rudi"], workspace=team)
    assert [c["name"] for c in narrow.get(COLLECTIONS).json()["results"]] == ["in-team"]
    assert [w["name"] for w in narrow.get(WORKSPACES).json()["results"]] == ["team-a"]
    assert narrow.get(members_url("default")).status_code == 404
    made = narrow.post(COLLECTIONS, {"name": "new"}, "application/json")  # the only one it sees
    assert made.status_code == 201 and made.json()["workspace"] == "team-a"


def test_a_token_narrowed_to_a_workspace_its_user_left_sees_nothing(people, team):
    Collection.objects.create(name="in-team", workspace=team)
    add_role(people["rudi"], RESEARCHER)  # still a researcher, of `default`
    narrow = as_user(people["rudi"], workspace=team)
    remove_member(team, people["rudi"])
    assert narrow.get(COLLECTIONS).json()["results"] == []
    assert narrow.get(WORKSPACES).json()["results"] == []
    assert narrow.get(members_url("team-a")).status_code == 404


def test_a_token_may_not_be_narrowed_to_someone_elses_workspace(people, team):
    with pytest.raises(ValueError, match="not in workspace 'team-a'"):
        issue_token(people["nora"], "x", workspace=team)


def test_the_tokens_page_narrows_a_new_token(client, people, team):
    client.force_login(people["rudi"])
    page = client.get(reverse("api-tokens")).content.decode()
    assert 'name="read_only"' in page and f'<option value="{team.pk}">team-a</option>' in page
    response = client.post(
        reverse("api-tokens"), {"name": "nb", "workspace": team.pk, "read_only": "on"}
    )
    assert response.status_code == 302
    row = ApiToken.objects.get(user=people["rudi"])
    assert row.workspace == team and row.read_only
    assert "team-a, read only" in client.get(reverse("api-tokens")).content.decode()
    other = create_workspace("secret-team", people["nora"])
    refused = client.post(reverse("api-tokens"), {"name": "nb2", "workspace": other.pk})
    assert refused.status_code == 400
    assert ApiToken.objects.filter(user=people["rudi"]).count() == 1


def test_the_token_command_narrows_a_token(people, team):
    out = StringIO()
    args = ["--user", "rudi", "--workspace", "team-a", "--read-only"]
    call_command("create_api_token", *args, stdout=out, stderr=StringIO())
    row = ApiToken.objects.get(user=people["rudi"])
    assert row.workspace == team and row.read_only
    with pytest.raises(Exception, match="not in workspace"):
        call_command(
            "create_api_token", "--user", "nora", "--workspace", "team-a", stderr=StringIO()
        )
