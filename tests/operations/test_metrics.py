"""/metrics: who may read it, and figures that move with requests, jobs and workers."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from crux_app.jobs.runner import run_batches
from crux_app.models import Job
from tests.operations.heartbeats import fresh_workers, make_stale
from tests.operations.scraping import sample, scrape

pytestmark = pytest.mark.django_db


def test_metrics_answer_the_allowed_networks_only(client, settings):
    assert client.get("/metrics").status_code == 200  # the test client is 127.0.0.1
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="::1").status_code == 200
    settings.METRICS_ALLOWED_NETWORKS = []
    assert client.get("/metrics").status_code == 403


def test_the_metrics_token_opens_metrics_from_anywhere(client, settings):
    settings.METRICS_TOKEN = "scrape-token-123"
    far = {"REMOTE_ADDR": "203.0.113.9"}
    ok = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token-123", **far)
    assert ok.status_code == 200
    wrong = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token-12", **far)
    assert wrong.status_code == 403
    assert client.get("/metrics", **far).status_code == 403
    settings.METRICS_TOKEN = ""  # no token configured: a bearer opens nothing
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ", **far).status_code == 403


def test_the_proxy_header_decides_the_address_behind_a_trusted_proxy(client, settings):
    settings.TRUSTED_PROXY_HEADER = "HTTP_X_FORWARDED_FOR"
    settings.TRUSTED_PROXY_COUNT = 1
    assert client.get("/metrics", HTTP_X_FORWARDED_FOR="198.51.100.7").status_code == 403
    assert client.get("/metrics", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 200


def test_a_request_is_counted_by_view_and_status_with_its_latency(client):
    before = scrape(client)
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert len(response["X-Request-ID"]) == 32
    client.get("/no/such/page/")
    after = scrape(client)
    for name, labels in (
        ("crux_http_requests_total", {"view": "login", "method": "GET", "status": "200"}),
        ("crux_http_requests_total", {"view": "<unresolved>", "method": "GET", "status": "404"}),
        ("crux_http_request_duration_seconds_count", {"view": "login", "method": "GET"}),
    ):
        assert sample(after, name, **labels) == sample(before, name, **labels) + 1, name


def test_a_job_that_runs_moves_the_job_figures(client, settings):
    settings.JOB_MAX_SHARDS = 2
    before = scrape(client)
    job = Job.objects.create(kind="import")
    pending = scrape(client)
    assert sample(pending, "crux_jobs", kind="import", state="pending") == 1
    assert (
        sample(pending, "crux_queue_depth", queue="cpu")
        == sample(before, "crux_queue_depth", queue="cpu") + 1
    )
    run_batches(job, [["a", "b"], ["c"]], lambda batch: {"imported": len(batch)})
    after = scrape(client)
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED
    assert sample(after, "crux_jobs", kind="import", state="succeeded") == 1
    assert sample(after, "crux_jobs", kind="import", state="pending") == 0
    assert sample(after, "crux_job_items_done", kind="import") == 3
    assert sample(after, "crux_job_shards", state="pending") == 0
    assert sample(after, "crux_job_model_tokens", kind="import", type="prompt") == 0


@pytest.mark.models
def test_model_calls_per_role_and_imported_rows_are_counted(client, embedder, tmp_path):
    before = scrape(client)
    assert ("crux_import_rows_total", (("format", "qrels"),)) in before  # known before any
    topics = tmp_path / "topics.tsv"
    topics.write_text("t1\tWhat is DENSE?\nt2\tWhat is SePer?\nt3\tWhat is CRUX?\n")
    call_command("import_topics", "--collection", "metrics", str(topics), verbosity=0)
    batches = [["one text"], ["another, longer text", "a third text"]]
    job = Job.objects.create(kind="generate_answers")
    run_batches(job, batches, lambda batch: {"embedded": len(embedder.embed(batch))})
    after = scrape(client)
    assert (
        sample(after, "crux_import_rows_total", format="topics")
        == sample(before, "crux_import_rows_total", format="topics") + 3
    )
    # The embedder names its role; one forward pass per batch, each padded to its longest text.
    shapes = [embedder.model.tokenize(batch)["input_ids"].shape for batch in batches]
    role = {"kind": "generate_answers", "role": "embedder"}
    assert sample(after, "crux_job_model_calls", **role) == 2
    assert sample(after, "crux_job_model_forward_tokens", **role) == sum(r * w for r, w in shapes)
    assert sample(after, "crux_job_model_calls", kind="generate_answers", role="judge") == 0


def test_worker_heartbeat_ages_and_stored_rows_are_exposed(client):
    fresh_workers()
    make_stale("gpu@host")
    samples = scrape(client)
    gpu_age = sample(samples, "crux_worker_heartbeat_age_seconds", worker="gpu@host", queues="gpu")
    cpu_age = sample(samples, "crux_worker_heartbeat_age_seconds", worker="cpu@host", queues="cpu")
    assert gpu_age > 45 and 0 <= cpu_age < 5
    assert ("crux_stored_rows", (("model", "Topic"),)) in samples
    assert ("crux_annotation_submissions", ()) in samples
    assert ("crux_webhook_deliveries", (("state", "failed"),)) in samples
    assert ("crux_webhook_attempts", (("outcome", "ok"),)) in samples


def test_metrics_read_no_more_queries_as_the_data_grows(client, django_assert_max_num_queries):
    fresh_workers()
    for _ in range(5):
        Job.objects.create(kind="import")
    with django_assert_max_num_queries(40):
        scrape(client)
