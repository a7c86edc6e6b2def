"""The REST API filters by workspace as the pages do: alpha's member reads alpha's endpoints, beta's
member gets 404 on each (lists never name alpha), alpha's viewer and a read-only token read them
and get 403 on every change; exports and their downloads follow the collection; a webhook
carries only what its maker may see, when the event happens and again when it is sent."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import ReviewCampaign
from api.tokens import issue_token
from crux_app.models import Job, WorkspaceMember
from tests.api.conftest import TokenClient
from tests.crux_app.workspace_doors import (
    A_NAME,
    B_JOB_PARAMS,
    B_NAME,
    EXPORT_BYTES,
    make_two_workspaces,
)
from tests.webhooks.endpoints import make_endpoint
from webhooks.audience import NOT_VISIBLE
from webhooks.delivery import attempt_delivery
from webhooks.event_types import JOB_SUCCEEDED
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db
V1 = "/api/v1"


@pytest.fixture
def spaces(settings, tmp_path):
    settings.API_EXPORT_DIR = tmp_path / "exports"
    return make_two_workspaces(settings.API_EXPORT_DIR)


def _api(user, **narrowing) -> TokenClient:  # noqa: ANN001 (a user)
    return TokenClient(issue_token(user, "doors", **narrowing)[1])


def _reads(s) -> list[str]:  # noqa: ANN001 (TwoWorkspaces)
    c = f"{V1}/collections/{A_NAME}"
    return [
        f"{c}/",
        f"{c}/audit/",
        f"{c}/judges/",
        f"{c}/judgments/",
        f"{c}/qrels/",
        f"{c}/leaderboard/",
        f"{c}/agreement/",
        f"{c}/judge-report/",
        f"{c}/per-topic/",
        f"{c}/topics/ta/coverage-matrix/",
        f"{c}/seper/",
        f"{c}/dense/",
        f"{c}/scaar/",
        f"{c}/reteval/",
        f"{c}/nuggets/",
        f"{V1}/jobs/{s.a_job.pk}/",
    ]


def test_alphas_endpoints_answer_alpha_and_404_for_beta(spaces):
    member, viewer, outsider = _api(spaces.member), _api(spaces.viewer), _api(spaces.outsider)
    for url in _reads(spaces):
        assert member.get(url).status_code == 200, url
        assert viewer.get(url).status_code == 200, url
        refused = outsider.get(url)
        assert refused.status_code == 404, url
        assert A_NAME not in refused.content.decode(), url


def test_lists_name_only_the_callers_workspace(spaces):
    member, outsider = _api(spaces.member), _api(spaces.outsider)
    names = [c["name"] for c in member.get(f"{V1}/collections/").json()["results"]]
    assert names == [A_NAME]
    assert member.get(f"{V1}/collections/", {"q": "beta"}).json()["results"] == []
    assert [c["name"] for c in outsider.get(f"{V1}/collections/").json()["results"]] == [B_NAME]
    jobs = member.get(f"{V1}/jobs/").content.decode()
    assert B_NAME not in jobs and B_JOB_PARAMS["note"] not in jobs
    ids = {j["id"] for j in member.get(f"{V1}/jobs/").json()["results"]}
    assert ids == {spaces.a_job.pk, spaces.a_export.pk}
    assert member.get(f"{V1}/jobs/", {"collection": B_NAME}).json()["results"] == []


def test_a_viewer_and_a_read_only_token_change_nothing(spaces):
    read_only = _api(spaces.member, read_only=True)
    for client, status in (
        (_api(spaces.viewer), 403),
        (read_only, 403),
        (_api(spaces.outsider), 404),
    ):
        started = client.post(
            f"{V1}/collections/{A_NAME}/jobs/",
            {"kind": "judge", "params": {}},
            content_type="application/json",
        )
        assert started.status_code == status
        assert client.post(f"{V1}/jobs/{spaces.a_job.pk}/cancel/").status_code == status
        assert client.post(f"{V1}/jobs/{spaces.a_job.pk}/retry/").status_code == status
        run = SimpleUploadedFile("bm25.run", b"ta Q0 ta:0#0 1 1.0 bm25\n")
        imported = client.post(
            f"{V1}/collections/{A_NAME}/imports/",
            {"format": "run", "run_name": "bm25-web", "file": run},
        )
        assert imported.status_code == status
    spaces.a_job.refresh_from_db()
    assert (spaces.a_job.state, spaces.a_job.cancel_requested) == (Job.State.PENDING, False)
    assert not Job.objects.filter(kind="import").exists()
    # The member's own token (not narrowed) cancels.
    cancelled = _api(spaces.member).post(f"{V1}/jobs/{spaces.a_job.pk}/cancel/")
    assert (cancelled.status_code, cancelled.json()["state"]) == (200, Job.State.CANCELLED)


def test_exports_and_their_downloads_follow_the_collection(spaces):
    download = f"{V1}/exports/{spaces.a_export.pk}/download/"
    member, viewer, outsider = _api(spaces.member), _api(spaces.viewer), _api(spaces.outsider)
    got = member.get(download)
    assert (got.status_code, b"".join(got.streaming_content)) == (200, EXPORT_BYTES)
    assert viewer.get(download).status_code == 200  # a colleague reads the collection too
    assert outsider.get(download).status_code == 404
    # Starting an export of alpha's qrels: beta's member is told no such collection exists.
    body = {"kind": "qrels", "params": {"collection": A_NAME}, "format": "csv"}
    refused = outsider.post(f"{V1}/exports/", body, content_type="application/json")
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"params.collection": [f"no collection named {A_NAME!r}"]}
    started = member.post(f"{V1}/exports/", body, content_type="application/json")
    assert started.status_code == 202
    job = Job.objects.get(pk=started.json()["job"]["id"])
    assert job.collection == spaces.a  # so the job and its file are seen by alpha alone
    assert outsider.get(f"{V1}/jobs/{job.pk}/").status_code == 404


def test_a_review_campaigns_verdict_is_for_its_collections_readers(spaces):
    campaign = ReviewCampaign.objects.create(
        name="alpha review", slug="alpha-review", collection=spaces.a, task_type="passage_rating"
    )
    url = f"{V1}/review-campaigns/{campaign.slug}/verdict/"
    assert _api(spaces.member).get(url).status_code == 200
    assert _api(spaces.outsider).get(url).status_code == 404


def test_a_webhook_carries_only_what_its_maker_may_see(spaces, django_capture_on_commit_callbacks):
    """An endpoint for every collection gets alpha's event only if its maker is in alpha; one
    whose maker left alpha before the event is sent sends nothing and says why."""
    alphas = make_endpoint(owner=spaces.member, events=(JOB_SUCCEEDED,))
    betas = make_endpoint(owner=spaces.outsider, events=(JOB_SUCCEEDED,))
    with django_capture_on_commit_callbacks():
        spaces.a_job.state = Job.State.SUCCEEDED
        spaces.a_job.save(update_fields=["state"])
    delivery = Delivery.objects.get()
    assert delivery.endpoint == alphas
    assert not Delivery.objects.filter(endpoint=betas).exists()
    WorkspaceMember.objects.filter(user=spaces.member).delete()
    attempt_delivery(delivery.pk)
    delivery.refresh_from_db()
    attempt = delivery.attempt_rows.get()
    assert (delivery.state, attempt.status_code, attempt.error) == (
        Delivery.State.FAILED,
        None,
        NOT_VISIBLE,
    )
