"""`manage.py evaluate`: record keys, JSON / CSV rendering, per-topic rows and clear errors."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from crux_app.models import Passage
from evaluation.backends import registry
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.crux.evaluate import RECORD_KEYS
from evaluation.crux.leaderboard_columns import COLUMNS
from evaluation.crux.oracle import ORACLE_POLICY
from evaluation.leaderboard.columns import columns
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_run,
    make_topic,
    rate_passages,
)
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db

GROUP_KEYS = {c.key for c in COLUMNS}
KEYS = [
    "run",
    "coverage",
    "alpha_ndcg",
    "density",
    "density_norm",
    "ndcg",
    "map",
    "recall",
    "rprec",
    "missing_judgments",
    "topics",
]


def printed_keys() -> list[str]:
    """The documented keys, then the other methods' leaderboard columns (Delta-SePer...)."""
    return [*KEYS, *(c.key for c in columns() if c.key not in GROUP_KEYS)]


def evaluate_cmd(*args: str) -> str:
    out = io.StringIO()
    call_command("evaluate", "--collection", "hand", "--tokenizer", "whitespace", *args, stdout=out)
    return out.getvalue()


def test_json_records_have_exactly_the_documented_keys():
    make_hand_collection()
    records = json.loads(evaluate_cmd("--k", "2"))
    assert list(RECORD_KEYS) == KEYS
    assert [r["run"] for r in records] == ["empty", "r1", "r2"]
    assert all(list(r) == printed_keys() for r in records)
    by_run = {r["run"]: r for r in records}
    assert by_run["r1"]["coverage"] == 1.0 and by_run["r1"]["missing_judgments"] == 2
    # The empty run has no context anywhere: density undefined -> null, never 0.
    assert by_run["empty"]["density"] is None and by_run["empty"]["coverage"] == 0.0


def test_json_per_topic_lists_every_topic():
    make_hand_collection()
    (record,) = json.loads(evaluate_cmd("--k", "2", "--run", "r1", "--per-topic"))
    assert list(record) == [*printed_keys(), "per_topic"]
    per_topic = {t["topic"]: t for t in record["per_topic"]}
    assert list(per_topic) == ["ta", "tb", "tc"]
    assert per_topic["ta"]["coverage"] is None and per_topic["ta"]["missing_judgments"] == 2
    assert per_topic["ta"]["reason"] == "coverage hinges on unjudged ratings of context passages"
    assert per_topic["tb"]["coverage"] == 1.0 and per_topic["tb"]["oracle"] == "qrels"


def test_missing_as_zero_and_tau_options():
    make_hand_collection()
    (record,) = json.loads(evaluate_cmd("--k", "2", "--run", "r1", "--missing-as-zero"))
    assert record["coverage"] == 0.75
    # tau 5: A(ta) = {} (best required ratings 4 and 3), A(tb) = {}: nothing defined.
    (record,) = json.loads(evaluate_cmd("--k", "2", "--run", "r1", "--tau", "5"))
    assert record["coverage"] is None and record["topics"]["undefined_coverage"] == 3


def test_csv_has_the_same_columns_and_empty_cells_for_undefined():
    make_hand_collection()
    rows = list(csv.DictReader(io.StringIO(evaluate_cmd("--k", "2", "--format", "csv"))))
    assert list(rows[0]) == printed_keys()
    by_run = {r["run"]: r for r in rows}
    assert by_run["empty"]["density"] == ""
    assert float(by_run["r1"]["coverage"]) == 1.0
    assert json.loads(by_run["r2"]["topics"])["not_ranked"] == 1
    # Same numbers as the JSON, to the last digit.
    records = {r["run"]: r for r in json.loads(evaluate_cmd("--k", "2"))}
    assert float(by_run["r1"]["alpha_ndcg"]) == records["r1"]["alpha_ndcg"]


def test_csv_per_topic_rows_carry_a_topic_column():
    make_hand_collection()
    text = evaluate_cmd("--k", "2", "--run", "r2", "--per-topic", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["run", "topic", *printed_keys()[1:], "oracle", "reason"]
    assert [(r["run"], r["topic"]) for r in rows] == [
        ("r2", ""),
        ("r2", "ta"),
        ("r2", "tb"),
        ("r2", "tc"),
    ]
    assert rows[2]["coverage"] == "0.0" and rows[3]["coverage"] == ""


def test_reports_option_prints_report_coverage_per_system():
    make_hand_collection()
    records = json.loads(evaluate_cmd("--reports"))
    assert [(r["system"], r["judge"], r["coverage"]) for r in records] == [
        ("r1", "human-1", 1.0),
        ("r2", "human-1", 0.5),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--collection", "nope"], r"collection 'nope' does not exist; collections: 'hand'"),
        (["--collection", "hand", "--run", "x"], r"run 'x'.*runs: 'empty', 'r1', 'r2'"),
        (
            ["--collection", "hand", "--judge", "x"],
            r"judge 'x'.*judges there: 'llm-judge', 'human-1'",
        ),
        (["--collection", "hand", "--qrels-source", "x"], r"sources: 'imported'"),
        (["--collection", "hand", "--k", "ten"], r"--k: k must be an integer from 1 to 1000"),
        (["--collection", "hand", "--tokenizer", "bert"], r"tokenizer 'bert' is not available"),
    ],
)
def test_bad_names_raise_a_command_error_listing_what_exists(args, message):
    make_hand_collection()
    with pytest.raises(CommandError, match=message):
        call_command("evaluate", *args, stdout=io.StringIO())


@pytest.mark.models
def test_default_tokenizer_is_the_embedded_generators(settings):
    """The real default tokenizer once: counts cached under the generator's id."""
    settings.TOKENIZER_MODEL = ""
    settings.GENERATOR_MODEL = ""
    settings.MODEL_DEVICE = "cpu"
    registry.clear()
    hand = make_hand_collection()
    out = io.StringIO()
    call_command("evaluate", "--collection", "hand", "--run", "r2", stdout=out)
    p0 = Passage.objects.get(pk=hand.passages["p0"].pk)
    assert p0.token_count_tokenizer == EMBEDDED_GENERATOR_ID
    expected = registry.get_token_counter().count_tokens([p0.text])[0]
    assert p0.token_count == expected > 0
    (record,) = json.loads(out.getvalue())
    assert record["density"] is not None


def test_a_computed_oracle_is_stated_in_the_pages_words():
    collection = make_collection("no-qrels")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    make_run(collection, "bm25", topic, passages[:1])
    rate_passages(make_judge("llm"), topic, passages, rating=lambda pos, i: 5 if i == pos else 0)
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate", "--collection", "no-qrels", "--k", "1", stdout=out, stderr=err)
    assert json.loads(out.getvalue())[0]["coverage"] == 0.5
    assert f"note (oracle, 1 of 1 topics): {ORACLE_POLICY}" in err.getvalue().splitlines()


def test_no_oracle_note_when_every_topic_has_qrels():
    make_hand_collection()
    err = io.StringIO()
    call_command("evaluate", "--collection", "hand", "--tokenizer", "whitespace", stderr=err,
                 stdout=io.StringIO())  # fmt: skip
    assert "note (oracle" not in err.getvalue()


def test_the_leaderboard_states_the_computed_oracle_in_the_same_words(researcher_client):
    collection = make_collection("no-qrels")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    make_run(collection, "bm25", topic, passages[:1])
    rate_passages(make_judge("llm"), topic, passages, rating=lambda pos, i: 5 if i == pos else 0)
    html = researcher_client.get(reverse("leaderboard", args=[collection.pk])).content.decode()
    assert 'id="oracle-policy"' in html and ORACLE_POLICY.replace("'", "&#x27;") in html
