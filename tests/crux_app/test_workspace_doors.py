"""Every researcher page filters by workspace: alpha's member reads alpha's pages, beta's member
gets 404 on each (as if they did not exist, the name never shown), alpha's viewer reads them
and gets 403 on every change; lists never name the other workspace's collection or jobs. The
last test walks every URL pattern of crux_app, evaluation and api from the resolver."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import get_resolver, reverse
from django.urls.resolvers import URLPattern, URLResolver

from crux_app.models import Job
from tests.crux_app.workspace_doors import A_NAME, B_JOB_PARAMS, B_NAME, make_two_workspaces
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def spaces(settings, tmp_path):
    settings.API_EXPORT_DIR = tmp_path / "exports"
    return make_two_workspaces(settings.API_EXPORT_DIR)


def _client(user) -> Client:  # noqa: ANN001 (a user)
    client = Client()
    client.force_login(user)
    return client


def _read_pages(s) -> list[str]:  # noqa: ANN001 (TwoWorkspaces)
    """alpha's pages, each a read a viewer may make."""
    a, t = s.a.pk, s.a_topic.pk
    return [
        reverse("collection-detail", args=[a]),
        reverse("topic-detail", args=[a, t]),
        reverse("topic-search", args=[a]) + "?topic=t",
        reverse("collection-audit", args=[a]),
        reverse("job-detail", args=[s.a_job.pk]),
        reverse("agreement", args=[a]),
        reverse("leaderboard", args=[a]),
        reverse("judge-report", args=[a]),
        reverse("crux-disagreements", args=[a]),
        reverse("crux-topic", args=[a, t]),
        reverse("crux-topic-cell", args=[a, t]) + f"?sq={s.a_topic.subquestions.first().pk}"
        f"&passage={s.a.passages.order_by('pk').first().pk}",
        reverse("seper-collection", args=[a]),
        reverse("seper-topic", args=[a, t]),
        reverse("dense-collection", args=[a]),
        reverse("dense-topic", args=[a, t]),
        reverse("scaar-collection", args=[a]),
        reverse("reteval-collection", args=[a]),
        reverse("reteval-topic", args=[a, t]),
        reverse("nuggets-collection", args=[a]),
        reverse("nuggets-topic", args=[a, t]),
    ]


def test_members_and_viewers_read_alphas_pages_and_beta_gets_404(spaces):
    member, viewer, outsider = (
        _client(spaces.member),
        _client(spaces.viewer),
        _client(spaces.outsider),
    )
    for url in _read_pages(spaces):
        assert member.get(url).status_code == 200, url
        assert viewer.get(url).status_code == 200, url
        refused = outsider.get(url)
        assert refused.status_code == 404, url
        assert A_NAME not in refused.content.decode(), url


def _writes(s) -> list[tuple[str, dict]]:  # noqa: ANN001 (TwoWorkspaces)
    """POSTs that change alpha's collection (start jobs, labels, campaigns, job controls)."""
    a, t = s.a.pk, s.a_topic.pk
    sq = s.a_topic.subquestions.first().pk
    passage = s.a.passages.order_by("pk").first().pk
    return [
        (reverse("crux-start", args=[a]), {}),
        (reverse("answers-start", args=[a]), {}),
        (reverse("seper-start", args=[a]), {}),
        (reverse("dense-start", args=[a]), {}),
        (reverse("scaar-start", args=[a]), {}),
        (reverse("reteval-start", args=[a]), {}),
        (reverse("nuggets-start", args=[a]), {}),
        (reverse("crux-topic-cell", args=[a, t]), {"subquestion": sq, "passage": passage}),
        (reverse("dense-topic-label", args=[a, t]), {}),
        (reverse("seper-topic-equivalence", args=[a, t]), {}),
        (reverse("judge-report-campaign", args=[a]), {}),
        (reverse("reteval-campaign", args=[a]), {}),
        (reverse("job-cancel", args=[s.a_job.pk]), {}),
        (reverse("job-retry", args=[s.a_job.pk]), {}),
        (reverse("job-move-up", args=[s.a_job.pk]), {}),
        (reverse("job-replace-upload", args=[s.a_job.pk]), {}),
    ]


def test_a_viewer_may_not_change_alpha_and_beta_does_not_see_it(spaces):
    viewer, outsider = _client(spaces.viewer), _client(spaces.outsider)
    for url, data in _writes(spaces):
        refused = viewer.post(url, data)
        assert refused.status_code == 403, url
        assert outsider.post(url, data).status_code == 404, url
    # The start pages and the cancel confirmation are for who may change the collection.
    for name in ("crux-start", "crux-start-count", "answers-start", "dense-start"):
        assert viewer.get(reverse(name, args=[spaces.a.pk])).status_code == 403, name
    assert viewer.get(reverse("job-cancel", args=[spaces.a_job.pk])).status_code == 403
    spaces.a_job.refresh_from_db()
    assert (spaces.a_job.state, spaces.a_job.cancel_requested) == (Job.State.PENDING, False)
    assert Job.objects.filter(collection=spaces.a).count() == 2  # nothing started


def test_an_upload_into_alpha_is_alphas_members(spaces, settings, tmp_path):
    """The upload page adds to an existing collection only for who may change it: 403 for the
    viewer, 404 for beta's member, before anything is stored."""
    settings.UPLOAD_DIR = tmp_path / "uploads"

    def upload(user) -> int:  # noqa: ANN001 (a user)
        run = SimpleUploadedFile("bm25.run", b"ta Q0 ta:0#0 1 1.0 bm25\n")
        data = {"format": "run", "collection": A_NAME, "run_name": "bm25-web", "file": run}
        return _client(user).post(reverse("upload"), data).status_code

    assert (upload(spaces.viewer), upload(spaces.outsider)) == (403, 404)
    assert not Job.objects.filter(kind="import").exists()
    assert not settings.UPLOAD_DIR.exists() or not any(settings.UPLOAD_DIR.iterdir())
    assert upload(spaces.member) == 302
    assert Job.objects.get(kind="import").params["collection"] == A_NAME


def test_a_job_page_offers_its_controls_only_to_who_may_use_them(spaces):
    url = reverse("job-detail", args=[spaces.a_job.pk])
    assert 'id="job-cancel"' in _client(spaces.member).get(url).content.decode()
    assert 'id="job-cancel"' not in _client(spaces.viewer).get(url).content.decode()
    cancel = f'href="{reverse("job-cancel", args=[spaces.a_job.pk])}"'
    assert cancel in _client(spaces.member).get(reverse("job-list")).content.decode()
    assert cancel not in _client(spaces.viewer).get(reverse("job-list")).content.decode()


def test_alphas_member_changes_alpha(spaces):
    member = _client(spaces.member)
    response = member.post(reverse("job-cancel", args=[spaces.a_job.pk]))
    assert response.status_code == 302
    spaces.a_job.refresh_from_db()
    assert spaces.a_job.state == Job.State.CANCELLED
    assert member.get(reverse("crux-start", args=[spaces.a.pk])).status_code == 200


def test_lists_never_name_the_other_workspace(spaces):
    member, outsider = _client(spaces.member), _client(spaces.outsider)
    listed = member.get(reverse("collection-list")).content.decode()
    assert A_NAME in listed and B_NAME not in listed
    found = member.get(reverse("collection-list"), {"q": "beta"}).content.decode()
    assert B_NAME not in found
    theirs = outsider.get(reverse("collection-list")).content.decode()
    assert B_NAME in theirs and A_NAME not in theirs
    jobs = member.get(reverse("job-list")).content.decode()
    assert f"/jobs/{spaces.a_job.pk}/" in jobs
    assert f"/jobs/{spaces.b_job.pk}/" not in jobs and B_NAME not in jobs
    assert B_JOB_PARAMS["note"] not in jobs
    table = member.get(reverse("job-table"), {"collection": "beta"}).content.decode()
    assert f"/jobs/{spaces.b_job.pk}/" not in table
    upload = _client(spaces.viewer).get(reverse("upload")).content.decode()
    assert A_NAME not in upload and B_NAME not in upload  # a viewer imports into neither


def test_a_superuser_sees_both(spaces, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="root-pass-1")
    listed = _client(root).get(reverse("collection-list")).content.decode()
    assert A_NAME in listed and B_NAME in listed
    assert _client(root).get(reverse("job-detail", args=[spaces.b_job.pk])).status_code == 200


def _patterns(resolver: URLResolver, prefix: str = ""):  # noqa: ANN202
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


DOOR_PACKAGES = ("crux_app.", "evaluation.", "api.")


def _kwargs(route: str, names: set[str], s) -> dict[str, object] | None:  # noqa: ANN001
    """alpha's objects for the route's parameters (None: a route naming none of them)."""
    values: dict[str, object] = {}
    for name in names:
        if name == "collection_pk":
            values[name] = s.a.pk
        elif name == "name":
            values[name] = A_NAME
        elif name == "topic":
            values[name] = s.a_topic.external_id
        elif name == "pk" and route.startswith("collections/<int:collection_pk>/topics/"):
            values[name] = s.a_topic.pk
        elif name == "pk" and route.startswith("collections/<int:pk>"):
            values[name] = s.a.pk
        elif name == "pk" and route.startswith(("jobs/", "api/v1/jobs/")):
            values[name] = s.a_job.pk
        elif name == "pk" and route.startswith("api/v1/exports/"):
            values[name] = s.a_export.pk
        else:
            return None
    return values or None


def test_every_door_of_these_layers_is_404_for_a_non_member(spaces):
    """From the URL resolver, not a hand list: each route of crux_app, evaluation and api that
    names one of alpha's objects answers beta's member 404 (405 where the method is not
    served), by GET and by POST, and never shows alpha's name."""
    outsider = _client(spaces.outsider)
    checked = []
    for route, pattern in _patterns(get_resolver()):
        view = getattr(pattern.callback, "view_class", pattern.callback)
        if not view.__module__.startswith(DOOR_PACKAGES) or "workspaces/" in route:
            continue  # (a workspace's own pages name the workspace, not its collections)
        kwargs = _kwargs(route, set(pattern.pattern.converters), spaces)
        if kwargs is None:
            continue
        url = reverse(pattern.name, kwargs=kwargs)
        for method in (outsider.get, outsider.post):
            response = method(url)
            assert response.status_code in (404, 405), (route, method.__name__)
            assert A_NAME not in response.content.decode(), route
        checked.append(route)
    # The doors above, and the method apps' own: a resolver that lost them fails here.
    assert len(checked) > 50, checked


def test_a_webhook_is_offered_only_the_makers_collections(spaces):
    outsider = _client(spaces.outsider)
    form = outsider.get(reverse("webhook-create")).content.decode()
    assert B_NAME in form and A_NAME not in form
    data = {"url": "https://8.8.8.8/hook", "collection": spaces.a.pk, "events": ["job.failed"]}
    assert outsider.post(reverse("webhook-create"), data).status_code == 400
    assert not Endpoint.objects.exists()
