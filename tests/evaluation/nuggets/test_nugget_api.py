"""The nugget API: the command's JSON for scores and losses, bounded selectors (400 naming the
field), 404 for an unknown collection, and no access without a token."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from tests.api.conftest import TokenClient
from tests.evaluation.nuggets.test_nugget_commands import load_loss_topic
from tests.evaluation.nuggets.test_nugget_imports import NAME

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(researcher) -> TokenClient:
    from api.tokens import issue_token

    return TokenClient(issue_token(researcher, "tests")[1])


def command_json(name: str, *args: str) -> dict:
    out = StringIO()
    call_command(name, "--collection", NAME, *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def test_the_api_gives_the_commands_numbers(api, tmp_path):
    load_loss_topic(tmp_path)

    scores = api.get(f"/api/v1/collections/{NAME}/nuggets/", {"judge": "amy"})
    losses = api.get(f"/api/v1/collections/{NAME}/nugget-losses/", {"k": "2"})

    assert scores.status_code == 200 and losses.status_code == 200
    assert scores.json() == command_json("nuggets", "--judge", "amy")
    assert losses.json() == command_json("nugget_losses", "--k", "2")


def test_bad_selectors_are_400_naming_the_field(api, tmp_path):
    load_loss_topic(tmp_path)
    response = api.get(f"/api/v1/collections/{NAME}/nugget-losses/", {"tau": "7"})
    assert response.status_code == 400 and "tau" in response.json()["errors"]
    response = api.get(f"/api/v1/collections/{NAME}/nuggets/", {"judge": "nobody"})
    assert response.status_code == 400 and "judge" in response.json()["errors"]
    assert api.get("/api/v1/collections/missing/nuggets/").status_code == 404
    assert Client().get(f"/api/v1/collections/{NAME}/nuggets/").status_code in (401, 403)
