"""The client made from the server's registries and schema, against a live server: ``results``
reaches every method's stored results (nuggets included) with no method-specific code, and
``start_job`` checks params against the published schema before it sends them."""

import pandas as pd
import pytest
import redis
from crux_client import ParamsRefused

from api.registry import JOB_FORMS, RESULT_TABLES
from crux_app.celery import app as celery_app
from crux_app.models import Job
from tests.crux_app.factories import make_small_collection
from tests.worker_fixtures import BROKER_URL, RESULT_URL, _use_broker

pytestmark = pytest.mark.django_db(transaction=True)

METHODS = {"crux", "seper", "dense", "scaar", "reteval", "nuggets"}


def test_results_follow_the_servers_registry_for_every_method(client_api):
    make_small_collection("duc04")
    tables = client_api.result_tables()
    assert set(tables) == set(RESULT_TABLES) and set(tables) >= METHODS
    for method in tables:
        frame = client_api.results("duc04", method)
        assert isinstance(frame, pd.DataFrame), method
    judgments = client_api.results("duc04", "crux", judge="smollm")
    assert set(judgments["judge"]) == {"smollm"} and len(judgments) > 0
    assert client_api.judgments("duc04", judge="smollm").equals(judgments)  # a thin wrapper
    with pytest.raises(ValueError, match="dense results take no judge"):
        client_api.results("duc04", "dense", judge="x")
    with pytest.raises(ValueError, match="no stored results of 'nope'"):
        client_api.results("duc04", "nope")


@pytest.fixture
def unworked_broker(client_api, settings):
    """Started jobs' tasks go to this session's test broker, where no worker takes them (a
    DENSE job stays pending instead of loading models in the server's process)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = (celery_app.conf.get("broker_url"), celery_app.conf.get("result_backend"))
    _use_broker(BROKER_URL, RESULT_URL)
    yield
    redis.Redis.from_url(BROKER_URL).flushdb()
    _use_broker(*previous)


def test_start_job_checks_params_locally_then_stores_the_declared_defaults(
    client_api, unworked_broker
):
    small = make_small_collection("duc04")
    assert set(client_api.job_kinds()) == set(JOB_FORMS)
    refused = [
        ({"run": "bm25", "nope": 1}, "params.nope: unknown parameter"),
        ({"run": "bm25", "k": 0}, "params.k: must be in 1..20"),
        ({"run": "bm25", "refine": "yes"}, "params.refine: must be boolean"),
        ({}, "params.run: dense needs 'run'"),
    ]
    for params, message in refused:
        with pytest.raises(ParamsRefused, match=message):
            client_api.start_job("duc04", "dense", **params)
    with pytest.raises(ParamsRefused, match="kind: 'nope' cannot be started"):
        client_api.start_job("duc04", "nope")
    assert not Job.objects.exists()  # nothing was sent
    job = client_api.start_job("duc04", "dense", run="bm25", k=3)
    stored = Job.objects.get(pk=job["id"]).params
    assert (stored["run_id"], stored["k"], stored["refine"], stored["chunking"]) == (
        small.bm25.pk,
        3,
        True,
        True,
    )
