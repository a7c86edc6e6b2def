"""Crowd aggregation through the API: the same JSON as ``manage.py aggregate_labels --format
json``, field-named 400s, the collection's aggregated judges listed; researchers only."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.task_types.names import PASSAGE_RATING
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db

URL = "/api/v1/collections/rv/aggregations/"


def _post(client, body):
    return client.post(URL, body, content_type="application/json")


def test_the_api_aggregates_as_the_command_does(api):
    disagreement_collection("rv")
    body = {"task": PASSAGE_RATING, "method": "dawid_skene", "name": "ds",
            "judges": ["user:ann", "user:bob", "gpt"]}  # fmt: skip
    response = _post(api, body)
    assert response.status_code == 201, response.content
    out = StringIO()
    call_command("aggregate_labels", "--collection", "rv", "--task", PASSAGE_RATING,
                 "--method", "dawid_skene", "--name", "ds", "--judges", "user:ann",
                 "user:bob", "gpt", "--format", "json", stdout=out)  # fmt: skip
    assert response.json() == json.loads(out.getvalue())
    listed = api.get(URL).json()
    assert [(r["judge"], r["implementation"], r["machines"]) for r in listed] == [
        ("aggregated:ds", "crowd-kit DawidSkene", ["gpt"])
    ]
    # Every rating any of the three gave is a class of each worker's confusion matrix.
    assert set(listed[0]["workers"][0]["confusion"]) == {"0", "1", "2", "3", "4", "5"}


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"method": "majority"}, "task", "unknown task"),
        ({"task": PASSAGE_RATING, "method": "vote"}, "method", "must be one of"),
        ({"task": PASSAGE_RATING, "seed": -1}, "seed", "seed"),
        ({"task": PASSAGE_RATING, "judges": "ann"}, "judges", "a list of judge names"),
        ({"task": PASSAGE_RATING, "judges": ["carl"]}, "judges", "no labels"),
        ({"task": PASSAGE_RATING, "campaign": "x"}, "campaign", "no campaign"),
        ({"task": PASSAGE_RATING, "name": "a b"}, "name", "letters"),
    ],
)
def test_bad_bodies_get_a_400_naming_the_field(api, body, field, words):
    disagreement_collection("rv")
    response = _post(api, body)
    assert response.status_code == 400
    assert field in response.json()["errors"] and words in response.json()["detail"]


def test_annotators_may_not_aggregate(annotator_api):
    disagreement_collection("rv")
    assert _post(annotator_api, {"task": PASSAGE_RATING}).status_code == 403
    assert annotator_api.get("/api/v1/collections/nope/aggregations/").status_code == 403
