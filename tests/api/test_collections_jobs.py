"""Collections (list, create, read with counts) and jobs (start with the page form's bounds,
read, list with filters, cancel, retry)."""

import pytest

from crux_app.models import Collection, Job
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db


def test_collections_list_with_counts(api):
    make_small_collection("duc04")
    body = api.get("/api/v1/collections/").json()
    assert body["count"] == 1
    (row,) = body["results"]
    assert row["name"] == "duc04"
    assert row["counts"]["topics"] == 2
    assert row["counts"]["runs"] == 2
    assert row["counts"]["passages"] == 6


def test_collection_create_and_read(api):
    response = api.post(
        "/api/v1/collections/", {"name": "new one"}, content_type="application/json"
    )
    assert response.status_code == 201
    assert response.json()["counts"]["topics"] == 0
    assert Collection.objects.filter(name="new one").exists()
    assert api.get("/api/v1/collections/new one/").json()["name"] == "new one"
    assert api.get("/api/v1/collections/nothing/").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "a\nb"}, "name"),
        ({"name": 5, "kind": "x"}, "kind"),
    ],
)
def test_collection_create_names_the_bad_field(api, body, field):
    response = api.post("/api/v1/collections/", body, content_type="application/json")
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_duplicate_collection_is_refused(api):
    Collection.objects.create(name="x")
    response = api.post("/api/v1/collections/", {"name": "x"}, content_type="application/json")
    assert response.status_code == 400
    assert "exists" in response.json()["errors"]["name"][0]


def _start(api, name, kind, params):
    return api.post(
        f"/api/v1/collections/{name}/jobs/",
        {"kind": kind, "params": params},
        content_type="application/json",
    )


def test_start_a_judging_job_with_the_forms_parameters(api, researcher):
    small = make_small_collection("duc04")
    response = _start(api, "duc04", "judge_answerability", {"scope": "collection", "k": 5})
    assert response.status_code == 202
    job = response.json()["job"]
    assert (job["kind"], job["state"], job["done"], job["total"]) == (
        "judge_answerability",
        "pending",
        0,
        0,
    )
    stored = Job.objects.get(pk=job["id"])
    assert stored.collection == small.collection and stored.created_by == researcher
    assert stored.params["k"] == 5


def test_the_embedding_kind_starts_the_embedding_judge(api):
    make_small_collection("duc04")
    response = _start(api, "duc04", "judge_embedding", {"scope": "collection"})
    assert response.status_code == 202
    assert response.json()["job"]["kind"] == "judge_embedding"


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("judge_answerability", {"k": 100000}, "params.k"),
        ("judge_answerability", {"scope": "nope"}, "params.scope"),
        ("judge_answerability", {"scope": "run"}, "params.run"),
        ("judge_answerability", {"k": {"a": 1}}, "params.k"),
        ("no_such_kind", {}, "kind"),
        ("import", {}, "kind"),
    ],
)
def test_bad_job_parameters_name_the_field(api, kind, params, field):
    make_small_collection("duc04")
    response = _start(api, "duc04", kind, params)
    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    assert not Job.objects.exists()


def test_job_read_list_filter_cancel_retry(api):
    small = make_small_collection("duc04")
    other = Collection.objects.create(name="other")
    first = Job.objects.create(kind="seper", collection=small.collection)
    Job.objects.create(kind="dense", collection=other, state=Job.State.SUCCEEDED)

    read = api.get(f"/api/v1/jobs/{first.pk}/").json()
    assert {"id", "kind", "state", "done", "total", "message"} <= set(read)
    listed = api.get("/api/v1/jobs/", {"collection": "duc04"}).json()["results"]
    assert [j["id"] for j in listed] == [first.pk]
    assert api.get("/api/v1/jobs/", {"state": "succeeded"}).json()["count"] == 1
    assert api.get("/api/v1/jobs/", {"kind": "dense", "state": "pending"}).json()["count"] == 0
    assert "state" in api.get("/api/v1/jobs/", {"state": "bogus"}).json()["errors"]

    retry_pending = api.post(f"/api/v1/jobs/{first.pk}/retry/")
    assert retry_pending.status_code == 409
    cancelled = api.post(f"/api/v1/jobs/{first.pk}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert api.post(f"/api/v1/jobs/{first.pk}/cancel/").status_code == 409
    retried = api.post(f"/api/v1/jobs/{first.pk}/retry/")
    assert retried.status_code == 202 and retried.json()["state"] == "pending"
    assert api.get("/api/v1/jobs/99999999/").status_code == 404


def test_paging_refuses_a_bad_page(api):
    assert "page" in api.get("/api/v1/jobs/", {"page": "x"}).json()["errors"]
    assert api.get("/api/v1/jobs/", {"page": "5"}).status_code == 400
