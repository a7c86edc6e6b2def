"""Bad query parameters of the pages that evaluate a collection (leaderboard, disagreements,
SePer correlations) are a quick 400 naming the field, never a 500 or a huge allocation."""

import time
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from evaluation.leaderboard.forms import MAX_K, parse_k
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db

PAGES = [("leaderboard", "pk"), ("crux-disagreements", "pk"), ("seper-collection", "collection_pk")]
BAD_K = ["1000000000", "2000000", str(MAX_K + 1), "²", "٣٣", "9" * 5000, "0", "-1", "1e3", "1.5",
         "ten", "oracle\x00", ""]  # fmt: skip


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def hand():
    return make_hand_collection()


def page(name: str, kwarg: str, hand, **params) -> str:
    return reverse(name, kwargs={kwarg: hand.collection.pk}) + "?" + urlencode(params)


@pytest.mark.parametrize(("name", "kwarg"), PAGES)
def test_a_bad_k_is_a_quick_400_naming_the_field(researcher_client, hand, name, kwarg):
    for k in filter(None, BAD_K):
        started = time.perf_counter()
        response = researcher_client.get(page(name, kwarg, hand, k=k))
        assert time.perf_counter() - started < 2, k
        assert response.status_code == 400, k
        refused = "Null characters are not allowed." if "\x00" in k else "k must be an integer"
        assert f"k: {refused}" in response.text, k


@pytest.mark.parametrize(("name", "kwarg"), PAGES[:2])
def test_k_up_to_the_bound_and_oracle_are_evaluated(researcher_client, hand, name, kwarg):
    for k in ["1", str(MAX_K), "oracle", " 7 "]:
        assert researcher_client.get(page(name, kwarg, hand, k=k)).status_code == 200, k


@pytest.mark.parametrize(("name", "kwarg"), PAGES)
def test_other_bad_parameters_name_the_field(researcher_client, hand, name, kwarg):
    for params, field in [
        ({"tau": "²"}, "tau"),
        ({"tau": "9"}, "tau"),
        ({"judge": "a\x00"}, "judge"),
        ({"qrels_source": "x" * 5000}, "qrels_source"),
    ]:
        response = researcher_client.get(page(name, kwarg, hand, **params))
        assert response.status_code == 400 and f"{field}: " in response.text, params


def test_parse_k_refuses_what_int_would_take():
    assert parse_k(" 42 ") == 42 and parse_k("oracle") == "oracle" and parse_k("0010") == 10
    for value in BAD_K:
        with pytest.raises(Exception, match="k must be an integer from 1 to 1000"):
            parse_k(value)
