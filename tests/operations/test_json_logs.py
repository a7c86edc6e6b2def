"""LOG_FORMAT=json: one JSON object per line, with the request id and the job id."""

from __future__ import annotations

import io
import json
import logging

import pytest

from crux_app.models import Job
from crux_app.tasks import import_data
from operations.json_logs import JsonFormatter
from operations.log_context import LogContextFilter

pytestmark = pytest.mark.django_db

EVENTS = ("job_start", "job_finish")


@pytest.fixture
def json_lines():
    """The root logger's records at INFO, formatted as LOG_FORMAT=json formats them."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(LogContextFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    levels = {
        name: logging.getLogger(name).level
        for name in ("", "crux.requests", "crux.jobs", "crux_app")
    }
    root.addHandler(handler)
    for name in levels:
        logging.getLogger(name).setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    root.removeHandler(handler)
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def test_a_request_logs_one_json_line_with_its_request_id(client, json_lines):
    response = client.get("/accounts/login/", HTTP_X_REQUEST_ID="lb-7f3a")
    assert response["X-Request-ID"] == "lb-7f3a"
    requests = [line for line in json_lines() if line.get("event") == "request"]
    assert len(requests) == 1
    line = requests[0]
    assert line["request_id"] == "lb-7f3a"
    assert (line["method"], line["path"], line["view"], line["status"]) == (
        "GET",
        "/accounts/login/",
        "login",
        200,
    )
    assert line["level"] == "INFO" and line["logger"] == "crux.requests" and "time" in line


def test_a_request_id_that_is_not_plain_is_replaced(client):
    response = client.get("/accounts/login/", HTTP_X_REQUEST_ID="x" * 200)
    assert len(response["X-Request-ID"]) == 32


def test_an_error_is_one_json_line_with_its_traceback():
    try:
        raise ValueError("bad row 3")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, None)
        record.exc_info = __import__("sys").exc_info()
    LogContextFilter().filter(record)
    text = JsonFormatter().format(record)
    assert "\n" not in text
    line = json.loads(text)
    assert line["message"] == "failed" and "ValueError: bad row 3" in line["exception"]
    assert "job_id" not in line and "request_id" not in line  # none bound here


def test_every_line_of_a_job_task_carries_the_job_id(json_lines):
    job = Job.objects.create(kind="import", state=Job.State.CANCELLED)
    import_data.apply(args=[job.pk])
    lines = json_lines()
    events = [line.get("event") for line in lines if line.get("job_id") == job.pk]
    assert events[0] == "job_start" and events[-1] == "job_finish"
    runner = [line for line in lines if line["logger"] == "crux_app.jobs.runner"]
    assert runner and all(line["job_id"] == job.pk for line in runner)
    assert runner[0]["message"] == f"job #{job.pk} is cancelled: task not run"
    start, finish = (next(line for line in lines if line.get("event") == e) for e in EVENTS)
    assert start["kind"] == "import" and finish["state"] == "cancelled"
