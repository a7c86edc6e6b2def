"""The workspaces pages (a manager adds a viewer, a viewer reads only, a non-member gets 404,
superusers create workspaces), a collection's workspace on its pages, the upload page's
choice of workspace, and the admin of a staff account that is no superuser."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.models import Collection, Job, Topic, Workspace, WorkspaceMember
from crux_app.roles import RESEARCHER, add_role
from crux_app.tasks import import_data
from crux_app.workspaces import create_workspace, set_role

from .factories import make_collection, make_topic

pytestmark = pytest.mark.django_db

Role = WorkspaceMember.Role


@pytest.fixture
def people(django_user_model):
    return {
        name: django_user_model.objects.create_user(name, password="pass-word-1")
        for name in ("maria", "rudi", "vic", "nora")
    }


@pytest.fixture
def team(people):
    """team-a: maria manages, rudi researches, vic views; nora is in none."""
    workspace = create_workspace("team-a", people["maria"])
    set_role(workspace, people["rudi"], Role.RESEARCHER)
    set_role(workspace, people["vic"], Role.VIEWER)
    return workspace


def signed_in(client, user):
    client.force_login(user)
    return client


def test_a_manager_adds_a_viewer_who_then_reads_but_cannot_change_members(client, people, team):
    url = reverse("workspace-detail", args=[team.pk])
    manager = signed_in(client, people["maria"])
    page = manager.get(url).content.decode()
    assert 'id="member-add"' in page and "Remove</button>" in page
    response = manager.post(url, {"username": "nora", "role": "viewer"})
    assert response.status_code == 302 and response.url == url
    assert team.members.get(user=people["nora"]).role == Role.VIEWER
    assert "nora added as viewer." in manager.get(url).content.decode()

    viewer = signed_in(client, people["nora"])
    page = viewer.get(url).content.decode()
    assert "maria" in page and "nora" in page and 'id="member-add"' not in page
    assert "Remove</button>" not in page
    assert viewer.post(url, {"username": "nora", "role": "manager"}).status_code == 403
    assert viewer.post(url, {"username": "rudi", "remove": "1"}).status_code == 403
    assert team.members.get(user=people["nora"]).role == Role.VIEWER


def test_a_researcher_reads_the_members_but_cannot_change_them(client, people, team):
    url = reverse("workspace-detail", args=[team.pk])
    researcher = signed_in(client, people["rudi"])
    assert 'id="member-add"' not in researcher.get(url).content.decode()
    assert researcher.post(url, {"username": "nora", "role": "viewer"}).status_code == 403
    assert not team.members.filter(user=people["nora"]).exists()


def test_a_manager_changes_a_role_removes_a_member_and_cannot_drop_the_last_manager(
    client, people, team
):
    url = reverse("workspace-detail", args=[team.pk])
    manager = signed_in(client, people["maria"])
    assert manager.post(url, {"username": "vic", "role": "researcher"}).status_code == 302
    assert team.members.get(user=people["vic"]).role == Role.RESEARCHER
    assert manager.post(url, {"username": "vic", "remove": "1"}).status_code == 302
    assert not team.members.filter(user=people["vic"]).exists()
    refused = manager.post(url, {"username": "maria", "remove": "1"})
    assert refused.status_code == 400
    assert "maria is the last manager of" in refused.content.decode()
    for bad in ({"username": "ghost", "role": "viewer"}, {"username": "rudi", "role": "boss"}):
        response = manager.post(url, bad)
        assert response.status_code == 400
    assert (
        "no account named"
        in manager.post(url, {"username": "ghost", "role": "viewer"}).content.decode()
    )
    assert team.members.filter(user=people["maria"], role=Role.MANAGER).exists()


def test_a_non_member_gets_404_and_lists_none_of_it(client, people, team):
    add_role(people["nora"], RESEARCHER)  # a researcher, of `default`
    outsider = signed_in(client, people["nora"])
    url = reverse("workspace-detail", args=[team.pk])
    assert outsider.get(url).status_code == 404
    assert outsider.post(url, {"username": "nora", "role": "manager"}).status_code == 404
    assert outsider.get(reverse("workspace-detail", args=[987654])).status_code == 404
    listing = outsider.get(reverse("workspace-list")).content.decode()
    assert "team-a" not in listing and 'id="workspace-create"' not in listing
    assert not team.members.filter(user=people["nora"]).exists()


def test_annotators_and_anonymous_visitors_are_kept_out(client, annotator, team):
    url = reverse("workspace-detail", args=[team.pk])
    assert client.get(url).status_code == 302  # to the login
    assert signed_in(client, annotator).get(reverse("workspace-list")).status_code == 403


def test_only_superusers_create_workspaces(client, people, django_user_model):
    url = reverse("workspace-list")
    create_workspace("team-a", people["maria"])
    manager = signed_in(client, people["maria"])
    assert manager.post(url, {"name": "team-b"}).status_code == 403
    root = django_user_model.objects.create_superuser("root", password="root-pass-1")
    admin = signed_in(client, root)
    page = admin.get(url).content.decode()
    assert "team-a" in page and 'id="workspace-create"' in page
    response = admin.post(url, {"name": "team-b", "owner": "rudi"})
    made = Workspace.objects.get(name="team-b")
    assert response.status_code == 302 and response.url == reverse(
        "workspace-detail", args=[made.pk]
    )
    assert made.members.get().user == people["rudi"]
    for bad, message in [
        ({"name": "team-b"}, "a workspace named"),
        ({"name": "x", "owner": "ghost"}, "no account named"),
        ({"name": "bad\tname"}, "control characters"),
    ]:
        response = admin.post(url, bad)
        assert response.status_code == 400 and message in response.content.decode()
    assert not Workspace.objects.filter(name__in=["x", "bad\tname"]).exists()


def test_the_nav_links_the_workspaces_and_collection_pages_show_the_workspace(client, researcher):
    collection = make_collection("shown")
    make_topic(collection, "q1")
    researcher_client = signed_in(client, researcher)
    listing = researcher_client.get(reverse("collection-list")).content.decode()
    assert f'href="{reverse("workspace-list")}"' in listing
    assert "<td>default</td>" in listing
    detail = researcher_client.get(reverse("collection-detail", args=[collection.pk]))
    default = Workspace.objects.get(name="default")
    assert reverse("workspace-detail", args=[default.pk]) in detail.content.decode()


@pytest.fixture
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def topics_upload(collection: str, **extra) -> dict:
    topics = SimpleUploadedFile("topics.tsv", b"q1\tfloods in 1998\n")
    return {"format": "topics", "collection": collection, "file": topics, **extra}


def test_upload_offers_the_writable_workspaces_and_imports_into_the_chosen_one(
    client, people, team, upload_dir
):
    rudi = signed_in(client, people["rudi"])
    page = rudi.get(reverse("upload")).content.decode()
    assert '<input type="hidden" name="workspace" value="team-a">' in page  # his only one
    other = create_workspace("team-b", people["maria"])
    set_role(other, people["rudi"], Role.RESEARCHER)
    page = rudi.get(reverse("upload")).content.decode()
    assert '<select name="workspace" id="id_workspace">' in page
    assert '<option value="team-b">' in page
    refused = rudi.post(reverse("upload"), topics_upload("new-one"))
    assert refused.status_code == 400
    assert "name the workspace: one of team-a, team-b" in refused.content.decode()
    response = rudi.post(reverse("upload"), topics_upload("new-one", workspace="team-b"))
    assert response.status_code == 302
    job = Job.objects.get(kind="import")
    import_data(job.pk)
    assert Collection.objects.get(name="new-one").workspace == other


def test_a_viewer_may_not_upload(client, people, team, upload_dir):
    collection = Collection.objects.create(name="theirs", workspace=team)
    viewer = signed_in(client, people["vic"])
    response = viewer.post(reverse("upload"), topics_upload("a-new-one"))
    assert response.status_code == 400
    assert "you may add collections to no workspace" in response.content.decode()
    assert viewer.post(reverse("upload"), topics_upload(collection.name)).status_code == 403
    assert not Job.objects.exists()


def test_a_staff_non_superuser_sees_in_the_admin_only_its_workspaces_rows(client, people, team):
    from crux_app.account_setup import _grant_admin_permissions

    mine = Collection.objects.create(name="mine", workspace=team)
    theirs = make_collection("theirs")  # in default, where maria is no member
    make_topic(mine, "q-mine")
    hidden_topic = make_topic(theirs, "q-theirs")
    maria = people["maria"]
    maria.is_staff = True
    maria.save()
    _grant_admin_permissions(maria)
    admin = signed_in(client, maria)
    listing = admin.get(reverse("admin:crux_app_collection_changelist")).content.decode()
    assert "mine" in listing and "theirs" not in listing
    topics = admin.get(reverse("admin:crux_app_topic_changelist")).content.decode()
    assert "q-mine" in topics and "q-theirs" not in topics
    hidden = reverse("admin:crux_app_topic_change", args=[hidden_topic.pk])
    assert admin.get(hidden).status_code == 302  # "not found": back to the admin index
    assert admin.get(reverse("admin:crux_app_workspace_changelist")).status_code == 403
    # A researcher (not manager) of the workspace may not delete its collection.
    rudi = people["rudi"]
    rudi.is_staff = True
    rudi.save()
    _grant_admin_permissions(rudi)
    delete = reverse("admin:crux_app_collection_delete", args=[mine.pk])
    assert signed_in(client, rudi).get(delete).status_code == 403
    assert signed_in(client, maria).get(delete).status_code == 200
    assert Topic.objects.filter(collection=mine).exists()
