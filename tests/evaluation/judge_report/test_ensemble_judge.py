"""Ensemble judges end to end: ``manage.py ensemble_judge`` over two imported judges, its labels,
and the same numbers on the leaderboard and agreement pages as a judge holding the
hand-computed combined labels; staleness, idempotence, refusals."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from crux_app.models import Judge, JudgeEnsemble, Judgment, PassageQrel, Run, RunEntry
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_topic,
)

pytestmark = pytest.mark.django_db
NAME = "mean(llm-a, llm-b)"
N = None
# (sub-question position, passage index) ratings; llm-a's output for (1, 3) was unparsable.
RATINGS = {
    "llm-a": [[5, 3, 0, 2], [1, 0, 4, N]],
    "llm-b": [[4, 3, 1, 2], [2, 0, 3, 5]],
    # mean rounded half up: 4.5 -> 5, 0.5 -> 1, 1.5 -> 2, 3.5 -> 4; (1, 3) has one label only
    "expected": [[5, 3, 1, 2], [2, 0, 4, "absent"]],
    "people": [[4, 2, 0, 3], [1, 1, 5, 2]],
}
RUNS = {"r1": [0, 1, 2, 3], "r2": [3, 2, 1, 0], "r3": [2, 0, 3, 1]}
QRELS = {"llm-a": [3, 1, 0, 2], "llm-b": [2, 1, 1, 0]}  # mean: 2.5 -> 3, 1, 0.5 -> 1, 1


@pytest.fixture
def hand(tmp_path):
    collection = make_collection("ens")
    topics = [make_topic(collection, f"t{i}", n_subquestions=2) for i in range(2)]
    passages = [make_passages(collection, t.external_id, 4) for t in topics]
    judges = {
        "llm-a": make_judge("llm-a"),
        "llm-b": make_judge("llm-b"),
        "expected": make_judge("expected"),
        "people": make_judge("people", kind=Judge.Kind.HUMAN),
    }
    rows = []
    for name, grid in RATINGS.items():
        for topic, pool in zip(topics, passages, strict=True):
            for sq in topic.subquestions.order_by("position"):
                for j, passage in enumerate(pool):
                    rating = grid[sq.position][j]
                    if rating == "absent":
                        continue
                    rows.append(
                        Judgment(
                            judge=judges[name],
                            topic=topic,
                            subquestion=sq,
                            passage=passage,
                            task=Judgment.Task.PASSAGE_RATING,
                            rating=rating,
                            raw_output="" if rating is not None else "I cannot rate this.",
                        )
                    )
    Judgment.objects.bulk_create(rows)
    for name, grades in QRELS.items():
        path = tmp_path / f"{name}.qrels"
        path.write_text(
            "".join(
                f"{t.external_id} 0 {p.external_id} {g}\n"
                for t, pool in zip(topics, passages, strict=True)
                for p, g in zip(pool, grades, strict=True)
            )
        )
        call_command(
            "import_qrels", "--collection", "ens", "--judge", name, "--kind", "llm",
            "--model-id", f"model/{name}", "--prompt-version", "v1", str(path),
            stdout=io.StringIO(),
        )  # fmt: skip
    for name, order in RUNS.items():
        run = Run.objects.create(collection=collection, name=name)
        RunEntry.objects.bulk_create(
            RunEntry(run=run, topic=t, passage=pool[j], rank=i + 1, score=9 - i, line_order=i)
            for t, pool in zip(topics, passages, strict=True)
            for i, j in enumerate(order)
        )
    return collection, topics, passages


def build(*args):
    out = io.StringIO()
    call_command(
        "ensemble_judge", "--collection", "ens", "--judges", "llm-a", "llm-b",
        "--combine", "mean", *args, stdout=out,
    )  # fmt: skip
    return out.getvalue()


def ratings_of(name):
    rows = Judgment.objects.filter(judge__name=name).values_list(
        "subquestion__topic__external_id", "subquestion__position", "passage__external_id", "rating"
    )
    return sorted(rows)


def test_the_command_stores_the_combined_labels(hand):
    printed = build()
    assert NAME in printed and "14 passage ratings" in printed and "8 passage qrels" in printed
    judge = Judge.objects.get(name=NAME)
    assert judge.kind == "ensemble" and judge.model_id == "mean of llm-a, llm-b"
    ensemble = JudgeEnsemble.objects.get(judge=judge)
    assert ensemble.combiner == "mean" and ensemble.min_members == 2
    assert [m.judge.name for m in ensemble.members.all()] == ["llm-a", "llm-b"]
    assert ratings_of(NAME) == ratings_of("expected")
    grades = PassageQrel.objects.filter(source=NAME, topic__external_id="t0")
    assert [g for _, g in sorted(grades.values_list("passage__external_id", "grade"))] == [
        3,
        1,
        1,
        1,
    ]
    # Re-running refreshes rather than adds.
    build()
    assert Judgment.objects.filter(judge=judge).count() == 14
    assert PassageQrel.objects.filter(source=NAME).count() == 8


def test_at_least_one_member_labels_the_item_the_other_refused(hand):
    build("--min-members", "1", "--name", "mean-any")
    rated = dict(((t, pos, p), r) for t, pos, p, r in ratings_of("mean-any"))
    assert rated["t0", 1, "t0:0#3"] == 5  # llm-b's label alone
    assert len(rated) == 16


def test_leaderboard_under_the_ensemble_equals_the_expected_judge(researcher_client, hand):
    collection = hand[0]
    build()
    url = reverse("leaderboard", args=[collection.pk])
    ensemble = researcher_client.get(url, {"judge": NAME, "k": "3"})
    expected = researcher_client.get(url, {"judge": "expected", "k": "3"})
    assert ensemble.status_code == expected.status_code == 200
    rows = {r["run"]: r for r in ensemble.context["board"].rows}
    assert rows == {r["run"]: r for r in expected.context["board"].rows}
    assert rows["r1"]["coverage"] is not None
    html = ensemble.text
    assert f"<b>{NAME}</b> = mean of llm-a, llm-b" in html.replace("&#x27;", "'")
    assert 'data-link="judge_report-leaderboard"' in html
    assert reverse("judge-report", args=[collection.pk]) in html


def agreement_records(client, collection, judge):
    url = reverse("agreement", args=[collection.pk])
    query = {"judge": ["people", judge], "resamples": "0", "format": "json"}
    data = json.loads(client.get(url, query).content)
    return [
        (r["task"], r["statistic"], r["value"], r["n"])
        for r in data["human_vs_llm"]
        if judge in json.dumps(r)
    ]


def test_agreement_with_people_equals_the_expected_judges(researcher_client, hand):
    collection = hand[0]
    build()
    got = agreement_records(researcher_client, collection, NAME)
    assert len(got) >= 3 and got == agreement_records(researcher_client, collection, "expected")
    assert {s for _, s, _, _ in got} >= {"cohen_kappa_quadratic", "spearman"}
    page = researcher_client.get(reverse("agreement", args=[collection.pk]), {"resamples": "0"})
    html = page.text.replace("&#x27;", "'")
    assert f"{NAME} (ensemble)" in html and "mean of llm-a, llm-b" in html
    assert 'data-link="judge_report-agreement"' in html


def test_a_member_changed_after_the_build_makes_it_stale(researcher_client, hand):
    collection = hand[0]
    build()
    url = reverse("judge-report", args=[collection.pk])
    query = {"judge_a": NAME, "judge_b": "people", "k": "3", "resamples": "0"}
    fresh = researcher_client.get(url, query)
    assert fresh.status_code == 200
    assert fresh.context["meta"]["judges"]["a"]["ensemble"]["members"] == ["llm-a", "llm-b"]
    assert "stale" not in fresh.text
    assert "ensemble: mean of llm-a, llm-b" in fresh.text
    changed = Judgment.objects.filter(judge__name="llm-b", rating=4).first()
    changed.rating = 0
    changed.save()
    stale = researcher_client.get(url, query)
    assert any("is stale: the labels of llm-b changed" in n for n in stale.context["meta"]["notes"])
    board = researcher_client.get(reverse("leaderboard", args=[collection.pk]))
    assert 'class="judge-warning ensemble-stale"' in board.text
    build()
    assert "is stale" not in researcher_client.get(url, query).text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judges", "llm-a", "nobody"], "'nobody' has no labels"),
        (["--judges", "llm-a"], "at least 2"),
        (["--judges", "llm-a", "llm-a"], "twice"),
        (["--judges", "llm-a", "llm-b", "--min-members", "3"], "min_members"),
        (["--judges", "llm-a", "llm-b", "--name", "people"], "not an ensemble"),
        (["--judges", "llm-a", "llm-b", "--name", "llm-a"], "after its member"),
    ],
)
def test_refusals(hand, args, message):
    with pytest.raises(CommandError, match=message):
        call_command(
            "ensemble_judge", "--collection", "ens", "--combine", "max", *args,
            stdout=io.StringIO(),
        )  # fmt: skip
    assert not Judge.objects.filter(kind="ensemble").exists()


def test_one_name_cannot_mean_two_ensembles(hand):
    build("--name", "pair")
    with pytest.raises(CommandError, match="already mean of llm-a, llm-b"):
        call_command(
            "ensemble_judge", "--collection", "ens", "--judges", "llm-a", "llm-b",
            "--combine", "max", "--name", "pair", stdout=io.StringIO(),
        )  # fmt: skip
