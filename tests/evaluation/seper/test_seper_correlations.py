"""Delta-SePer as a leaderboard column, and its Pearson correlations with utility labels,
CRUX coverage and Recall@k (service, page and command), from stored SePer rows."""

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy.stats import pearsonr

from crux_app.models import Collection, Run, RunEntry
from evaluation.crux.evaluate import EvaluationParams, evaluate
from evaluation.leaderboard.columns import LeaderboardParams, column_values
from evaluation.seper.correlations import seper_correlations
from evaluation.seper.models import SeperScore, seper_key
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_qrels,
    make_topic,
    rate_passages,
)

pytestmark = pytest.mark.django_db

SETTING = {"generator": "gen", "nli": "nli", "params": {"n_samples": 2}}
RUN_DELTAS = [0.4, 0.3, -0.1, 0.0]  # per topic, of the run's top-1 context
GOLD_DELTAS = [0.5, 0.4, 0.2, 0.3]  # the gold passage alone
DISTRACTOR_DELTAS = [-0.1, 0.0, 0.1, -0.2]


def _score(topic, kind, delta, **columns):
    k = columns.get("k")
    key = seper_key(
        topic.pk,
        kind,
        columns.get("passage").pk if "passage" in columns else None,
        columns.get("run").pk if "run" in columns else None,
        k,
        SETTING["generator"],
        SETTING["nli"],
        SETTING["params"],
    )
    return SeperScore.objects.create(
        key=key,
        topic=topic,
        context_kind=kind,
        seper_s=0.5,
        seper_h=0.5,
        delta_s=delta,
        delta_h=delta / 2 if delta is not None else None,
        **SETTING,
        **columns,
    )


@pytest.fixture
def scored():
    """Four QA topics; the run ranks the gold passage first on t0, t1 and second on t2, t3
    (Recall@1 1, 1, 0, 0); an LLM judge rates the passages (coverage@1 1, 1, 0, 1)."""
    collection = make_collection("corr", kind=Collection.Kind.QA)
    run = Run.objects.create(collection=collection, name="bm25")
    judge = make_judge("llm")
    for i in range(4):
        topic = make_topic(collection, f"t{i}", n_subquestions=1, request=f"Question {i}?")
        topic.gold_answers = [f"answer {i}"]
        topic.save(update_fields=["gold_answers"])
        gold, distractor, other = make_passages(collection, f"t{i}", 3)
        # Grade 3: the gold passage is the oracle, so CRUX coverage is defined.
        make_qrels(topic, {gold: 3}, source="qa_gold")
        order = [gold, distractor, other] if i < 2 else [distractor, gold, other]
        RunEntry.objects.bulk_create(
            RunEntry(run=run, topic=topic, passage=p, rank=r + 1, score=1 / (r + 1), line_order=r)
            for r, p in enumerate(order)
        )
        rate_passages(judge, topic, [gold, distractor, other], lambda _, p, i=i: (5, i, 0)[p])
        _score(topic, "none", None)
        _score(topic, "run", RUN_DELTAS[i], run=run, k=1)
        _score(topic, "passage", GOLD_DELTAS[i], passage=gold)
        _score(topic, "passage", DISTRACTOR_DELTAS[i], passage=distractor)
    return collection


def _row(result, delta, target):
    return next(r for r in result.rows if r.delta == delta and r.target == target)


def test_the_leaderboard_column_is_the_mean_top_k_delta_at_that_k(scored, researcher_client):
    values = column_values(scored, LeaderboardParams(k=1), ["bm25"])
    assert values["delta_seper"]["bm25"] == pytest.approx(sum(RUN_DELTAS) / 4)
    assert column_values(scored, LeaderboardParams(k=10), ["bm25"])["delta_seper"]["bm25"] is None
    page = researcher_client.get(reverse("leaderboard", args=[scored.pk]), {"k": "1"})
    html = page.content.decode()
    assert "ΔSePer@1" in html and f"{sum(RUN_DELTAS) / 4:.4f}" in html


def test_correlations_match_scipy_on_the_stored_values(scored):
    params = LeaderboardParams(k=1)
    result = seper_correlations(scored, params)
    utility = _row(result, "delta_s", "utility")
    expected = pearsonr(GOLD_DELTAS + DISTRACTOR_DELTAS, [1.0] * 4 + [0.0] * 4)
    assert utility.correlation.n == 8
    assert utility.correlation.r == pytest.approx(expected.statistic)
    assert utility.correlation.p_value == pytest.approx(expected.pvalue)
    evaluation = evaluate(scored, EvaluationParams.from_leaderboard(params))
    per_topic = evaluation.per_topic(evaluation.runs[0])
    for metric in ("recall", "coverage"):
        row = _row(result, "delta_s", metric)
        expected = pearsonr(RUN_DELTAS, [t[metric] for t in per_topic])
        assert row.correlation.n == 4
        assert row.correlation.r == pytest.approx(expected.statistic)
        assert row.correlation.p_value == pytest.approx(expected.pvalue)
    hard = _row(result, "delta_h", "recall")
    assert hard.correlation.r == pytest.approx(_row(result, "delta_s", "recall").correlation.r)


def test_too_few_pairs_is_undefined_with_the_reason(scored):
    SeperScore.objects.filter(context_kind="run").exclude(topic__external_id="t0").delete()
    row = _row(seper_correlations(scored, LeaderboardParams(k=1)), "delta_s", "recall")
    assert row.correlation.r is None
    assert row.correlation.undefined == "fewer than 3 pairs with both values (n=1)"


def test_the_page_and_the_command_show_the_figures(scored, researcher_client):
    page = researcher_client.get(reverse("seper-collection", args=[scored.pk]), {"k": "1"})
    assert page.status_code == 200
    html = page.content.decode()
    expected = pearsonr(GOLD_DELTAS + DISTRACTOR_DELTAS, [1.0] * 4 + [0.0] * 4)
    assert 'data-delta="delta_s" data-target="utility"' in html
    assert f"{expected.statistic:.3f}" in html
    out = io.StringIO()
    call_command("seper_correlations", "--collection", "corr", "--k", "1", stdout=out)
    data = json.loads(out.getvalue())
    utility = next(
        c for c in data["correlations"] if c["delta"] == "delta_s" and c["target"] == "utility"
    )
    assert utility["correlation"]["r"] == pytest.approx(expected.statistic)
    assert utility["correlation"]["n"] == 8
    assert data["runs"] == [{"run": "bm25", "delta_seper_s": pytest.approx(0.15)}]
    text = io.StringIO()
    call_command(
        "seper_correlations", "--collection", "corr", "--k", "1", "--format", "text", stdout=text
    )
    assert (
        "r = " in text.getvalue() and "run bm25: mean ΔSePer_S of top-1 = 0.150" in text.getvalue()
    )


def test_a_collection_without_scores_says_so(researcher_client):
    collection = make_collection("empty", kind=Collection.Kind.QA)
    result = seper_correlations(collection, LeaderboardParams(k=1))
    assert result.rows == [] and result.notes == ["no SePer scores in this collection yet"]
    page = researcher_client.get(reverse("seper-collection", args=[collection.pk]))
    assert "no SePer scores in this collection yet" in page.content.decode()


def test_a_bare_page_shows_the_k_the_jobs_ran_at_not_the_forms_default(scored, researcher_client):
    # The run contexts were scored at k = 1; the start form's default k is 5.
    page = researcher_client.get(reverse("seper-collection", args=[scored.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert '<span id="seper-k">k 1</span>' in html
    assert "the SePer jobs scored run contexts at k = 1" in html
    assert "k 5" not in html and "--k 1" in html
    # A k asked for is shown as asked.
    asked = researcher_client.get(reverse("seper-collection", args=[scored.pk]), {"k": "3"})
    assert '<span id="seper-k">k 3</span>' in asked.content.decode()
