"""The judge report's metric list is open: its own nDCG, then every leaderboard column flagged
``judge_report`` in a group with per-topic values, offered by the page's form and the command
under the column's key and label; the three historical keys and labels are unchanged."""

import io
import json

import pytest
from django.core.management import call_command

from crux_app.models import Judge
from evaluation.judge_report.forms import (
    DefaultReport,
    JudgeReportForm,
    default_judges,
    judge_choices,
    metric_choices,
    report_defaults,
)
from evaluation.judge_report.metrics import metric_keys, metric_named, metrics
from evaluation.leaderboard.columns import (
    COLUMN_GROUPS,
    Column,
    ColumnGroup,
    GroupValues,
    LeaderboardParams,
)
from tests.crux_app.factories import make_collection, make_judge
from tests.evaluation.judge_report.two_judges import make_two_judges

BY_JUDGE = {"llm-judge": 0.5, "people": 0.25}


def _per_topic(collection, params: LeaderboardParams, run_names):
    """Each judge ranks the runs in name order, the person on a lower scale."""
    base = BY_JUDGE[params.judge]
    topics = list(collection.topics.order_by("external_id").values_list("pk", flat=True))
    return {
        "zz_flagged": {(run, t): base + 0.1 * r for r, run in enumerate(run_names) for t in topics},
        "ndcg": {(run, t): 0.0 for run in run_names for t in topics},
    }


def _group(per_topic=_per_topic, judges=None) -> ColumnGroup:
    return ColumnGroup(
        key="zz_metrics_test",
        columns=(
            Column("zz_flagged", "Flagged@{k}", judge_report=True, judge_basis="under tests"),
            Column("zz_plain", "Plain"),
            Column("ndcg", "Shadow nDCG", judge_report=True),
        ),
        compute=lambda c, p, r: GroupValues({}),
        per_topic=per_topic,
        judges=judges,
    )


@pytest.fixture
def registered():
    """Registers a group for one test (``registered(group)``) and always unregisters it."""
    keys: list[str] = []

    def register(group: ColumnGroup) -> ColumnGroup:
        keys.append(group.key)
        return COLUMN_GROUPS.register(group)

    yield register
    for key in keys:
        COLUMN_GROUPS.unregister(key)


def test_the_historical_metrics_keep_their_keys_labels_and_order():
    assert metric_keys()[:3] == ("ndcg", "coverage", "alpha_ndcg")
    assert [metrics()[k].label for k in metric_keys()[:3]] == [
        "nDCG@{k}",
        "Coverage@{k}",
        "α-nDCG@{k}",
    ]
    assert metric_choices()[:3] == [
        ("ndcg", "nDCG@k"),
        ("coverage", "Coverage@k"),
        ("alpha_ndcg", "α-nDCG@k"),
    ]
    assert metric_named("coverage").label_for(5) == "Coverage@5"


def test_a_flagged_column_is_offered_an_unflagged_one_and_a_second_ndcg_are_not(registered):
    registered(_group())
    found = metrics()
    assert found["zz_flagged"].label_for(7) == "Flagged@7"
    assert found["zz_flagged"].basis == "under tests"
    assert "zz_plain" not in found
    assert found["ndcg"].label == "nDCG@{k}" and found["ndcg"].basis.startswith("under each")
    form = JudgeReportForm(None, judges=[])
    assert ("zz_flagged", "Flagged@k") in form.fields["metric"].choices


def test_a_flagged_column_without_per_topic_values_is_not_offered(registered):
    registered(_group(per_topic=None))
    assert "zz_flagged" not in metric_keys()


@pytest.mark.django_db
def test_the_command_computes_a_flagged_metric(registered):
    make_two_judges()
    registered(_group())
    out = io.StringIO()
    args = ("--judges", "llm-judge", "people", "--metric", "zz_flagged", "--k", "4")
    call_command(
        "judge_report", "--collection", "twojudges", *args, "--resamples", "20", stdout=out
    )
    data = json.loads(out.getvalue())
    assert data["meta"]["metric_label"] == "Flagged@4"
    assert data["meta"]["metric_basis"] == "under tests"
    ranking = data["run_ranking"]
    assert ranking["kendall_tau"] == pytest.approx(1.0)
    # runs in name order: best, mid, worst, xtra
    assert [r["score_b"] for r in ranking["runs"]] == pytest.approx([0.25, 0.35, 0.45, 0.55])


@pytest.mark.django_db
def test_the_page_offers_the_judges_a_group_has_values_under(registered):
    two = make_two_judges()
    registered(_group(judges=lambda collection: ["people", "ghost"]))
    names = [name for name, _ in judge_choices(two.collection)]
    assert names.count("people") == 1 and names[-1] == "ghost"


@pytest.mark.django_db
def test_a_bare_url_defaults_to_a_groups_judges_where_passage_ratings_pair_none(registered):
    lonely = make_collection("lonely")
    assert default_judges(lonely) is None
    make_judge("g-llm")
    make_judge("g-person", kind=Judge.Kind.HUMAN)
    registered(_group(judges=lambda collection: ["g-person", "g-llm"]))

    # An LLM as A and a person as B, under the group's first flagged column.
    assert default_judges(lonely) == DefaultReport("g-llm", "g-person", "zz_flagged")
    assert report_defaults(lonely, {}) == {
        "metric": "zz_flagged",
        "k": "10",
        "resamples": "1000",
        "judge_a": "g-llm",
        "judge_b": "g-person",
    }
    # A request naming a judge keeps nDCG: the default pair's metric fits the default pair only.
    assert report_defaults(lonely, {"judge_a": "g-llm"})["metric"] == "ndcg"
    # Passage ratings by an LLM and a person stay the first choice.
    two = make_two_judges()
    assert default_judges(two.collection) == DefaultReport("llm-judge", "people", "ndcg")
