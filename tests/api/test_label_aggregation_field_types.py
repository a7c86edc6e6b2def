"""Every field of ``POST /api/v1/collections/<name>/aggregations/`` answers a 400 naming the
field for a value of the wrong type (a list where a string is expected and the reverse, an
object, null) or out of bounds; never a 500 (a JSON list as ``task`` once raised TypeError)."""

from __future__ import annotations

import pytest

from annotation.crowd.forms import MAX_JUDGES
from annotation.task_types.names import PASSAGE_RATING
from tests.annotation.review_data import disagreement_collection

pytestmark = pytest.mark.django_db

URL = "/api/v1/collections/rv/aggregations/"
WRONG = {
    "task": [[PASSAGE_RATING], {"a": 1}, 3, None, True],
    "method": [["majority"], {"majority": 1}, 1, None],
    "name": [["ds"], {"n": "ds"}, 5, None, "x" * 81],
    "campaign": [["slug"], {"s": 1}, 7, None, "x" * 81],
    "seed": [-1, 2**31, 10**30, "1", [1], {"s": 1}, 1.5, True, None],
    "judges": ["user:ann", "", None, {"user:ann": 1}, [1], [""], [["user:ann"]],
               [f"j{i}" for i in range(MAX_JUDGES + 1)]],
}  # fmt: skip
CASES = [(field, value) for field, values in WRONG.items() for value in values]


@pytest.mark.parametrize(
    ("field", "value"), CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)]
)
def test_a_wrong_type_or_bound_is_a_400_naming_the_field(api, field, value):
    disagreement_collection("rv")
    body = {"task": PASSAGE_RATING, field: value}
    response = api.post(URL, body, content_type="application/json")
    assert response.status_code == 400, (field, value, response.content[:300])
    assert list(response.json()["errors"]) == [field]


def test_a_body_that_is_not_an_object_is_a_400_naming_the_task(api):
    disagreement_collection("rv")
    response = api.post(URL, [PASSAGE_RATING], content_type="application/json")
    assert response.status_code == 400 and "task" in response.json()["errors"]
