"""The Python client's workspace methods against a live server: a superuser creates a
workspace, its manager adds and removes members, a collection is created in it."""

import pytest
from crux_client import ApiError
from crux_client import Client as ApiClient

from api.tokens import issue_token
from crux_app.models import Collection

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_list_add_and_remove_members(live_server, django_user_model, researcher):
    root = django_user_model.objects.create_superuser("root", password="root-pass-1")
    django_user_model.objects.create_user("vic", password="pass-word-1")
    with ApiClient(live_server.url, issue_token(root, "live")[1]) as api:
        made = api.create_workspace("team-a", owner="rita")
        assert made["name"] == "team-a" and made["members"] == 1
        assert "team-a" in set(api.workspaces()["name"])
        with pytest.raises(ApiError) as taken:
            api.create_workspace("team-a")
        assert taken.value.status == 400 and "name" in taken.value.errors
    with ApiClient(live_server.url, issue_token(researcher, "live")[1]) as rita:
        listed = rita.workspaces().set_index("name")
        assert listed.loc["team-a", "role"] == "manager"
        assert rita.add_member("team-a", "vic", "viewer")["role"] == "viewer"
        members = rita.workspace_members("team-a")
        assert dict(zip(members["username"], members["role"], strict=True)) == {
            "rita": "manager",
            "vic": "viewer",
        }
        assert rita.remove_member("team-a", "vic") is None
        assert list(rita.workspace_members("team-a")["username"]) == ["rita"]
        with pytest.raises(ApiError) as last:
            rita.remove_member("team-a", "rita")
        assert last.value.status == 400 and "last manager" in last.value.detail
        with pytest.raises(ApiError) as forbidden:
            rita.create_workspace("team-b")
        assert forbidden.value.status == 403
        rita.create_collection("c1", workspace="team-a")
    assert Collection.objects.get(name="c1").workspace.name == "team-a"
