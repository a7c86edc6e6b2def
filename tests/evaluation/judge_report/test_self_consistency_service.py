"""``build_self_consistency``: a judge's sampled repeats found in the database, their test-retest
alpha and the human-human and human-judge alpha on the same items (CRUX ratings and UMBRELA
qrels), the chart, the page partial, and the judges that have nothing to show."""

import json

import krippendorff
import numpy as np
import pytest
from django.template.loader import render_to_string

from crux_app.models import Judge, Judgment, PassageQrel
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.judge_report.method.self_consistency import (
    human_human_alpha,
    human_judge_alpha,
    retest_agreement,
)
from evaluation.judge_report.self_consistency import build_self_consistency
from tests.crux_app.factories import make_collection, make_passages, make_topic

pytestmark = pytest.mark.django_db

MODEL = "org/judge-8b"
RESAMPLES = 300
nan = np.nan


def truth(pos: int, i: int) -> int:
    return (pos * 2 + i) % 6


def repeat_rating(seed: int, pos: int, i: int) -> int:
    return int(np.clip(truth(pos, i) + (pos * 7 + i * 3 + seed) % 3 - 1, 0, 5))


def second_person(pos: int, i: int) -> int | None:
    if (pos + i) % 5 == 0:
        return None  # not every item has two people
    return int(np.clip(truth(pos, i) + (pos + i) % 2, 0, 5))


def llm(version: str, model: str = MODEL) -> Judge:
    return Judge.objects.create(
        name=f"{model}@{version}", kind=Judge.Kind.LLM, model_id=model, prompt_version=version
    )


def rate(judge, topic, subquestions, passages, rating) -> np.ndarray:
    """Store ``rating(pos, i)`` (None: no label) and return the (items,) labels."""
    rows, labels = [], []
    for pos, sq in enumerate(subquestions):
        for i, passage in enumerate(passages):
            value = rating(pos, i)
            labels.append(nan if value is None else value)
            if value is not None:
                rows.append(
                    Judgment(judge=judge, topic=topic, subquestion=sq, passage=passage,
                             task=Judgment.Task.PASSAGE_RATING, rating=value)
                )  # fmt: skip
    Judgment.objects.bulk_create(rows)
    return np.array(labels, float)


@pytest.fixture
def ratings():
    """One topic, 3 sub-questions x 6 passages: a greedy judge, three repeats at T = 0.7, two
    at T = 1.2 on the first two sub-questions only, and two people."""
    collection = make_collection("sc")
    topic = make_topic(collection, "t1", n_subquestions=3)
    subquestions = list(topic.subquestions.order_by("position"))
    passages = make_passages(collection, "t1", 6)
    greedy = llm("crux-rubric-v1")
    data = {"collection": collection, "greedy": greedy}
    data["greedy_labels"] = rate(greedy, topic, subquestions, passages, truth)
    data["t07"] = np.column_stack([
        rate(llm(f"crux-rubric-v1~t0.7-s{s}"), topic, subquestions, passages,
             lambda pos, i, s=s: repeat_rating(s, pos, i))
        for s in (1, 2, 3)
    ])  # fmt: skip
    data["t12"] = np.column_stack([
        rate(llm(f"crux-rubric-v1~t1.2-s{s}"), topic, subquestions[:2], passages,
             lambda pos, i, s=s: repeat_rating(s + 10, pos, i))
        for s in (0, 1)
    ])  # fmt: skip
    people = [Judge.objects.create(name=n, kind=Judge.Kind.HUMAN) for n in ("ann", "bob")]
    data["humans"] = np.column_stack([
        rate(people[0], topic, subquestions, passages, truth),
        rate(people[1], topic, subquestions, passages, second_person),
    ])  # fmt: skip
    # Not this judge's: another model's repeat, another prompt's repeat.
    rate(llm("crux-rubric-v1~t0.7-s1", model="org/other"), topic, subquestions, passages, truth)
    rate(llm("crux-rubric-v2~t0.7-s1"), topic, subquestions, passages, truth)
    return data


def figures(stat: dict) -> tuple:
    return stat["value"], stat["ci_low"], stat["ci_high"], stat["n"]


def same(stat: dict, expected) -> None:
    wanted = (expected.value, expected.ci_low, expected.ci_high, expected.n)
    assert figures(stat) == pytest.approx(wanted)


def test_repeats_are_grouped_by_temperature_beside_people_on_the_same_items(ratings):
    data = build_self_consistency(ratings["collection"], ratings["greedy"].name, RESAMPLES)
    json.dumps(data)  # JSON-able as it is
    boot = Bootstrap(n_resamples=RESAMPLES, seed=0)
    cats = range(6)
    assert data["greedy_judge"] == ratings["greedy"].name and data["labels"] == "passage_rating"
    first, second = data["groups"]
    assert first["temperature"] == 0.7 and second["temperature"] == 1.2
    assert [(r["seed"], r["n_labels"]) for r in first["repeats"]] == [(1, 18), (2, 18), (3, 18)]
    assert [(r["seed"], r["n_labels"]) for r in second["repeats"]] == [(0, 12), (1, 12)]
    assert first["repeats"][0]["judge"] == f"{MODEL}@crux-rubric-v1~t0.7-s1"

    t07 = ratings["t07"]
    assert first["n_items"] == 18
    expected = retest_agreement(t07, cats, boot)
    same(first["test_retest"]["alpha"], expected.alpha)
    same(first["test_retest"]["agreement"], expected.agreement)
    same(first["test_retest"]["all_agree"], expected.all_agree)
    assert first["test_retest"]["alpha"]["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=t07.T, value_domain=list(cats),
                           level_of_measurement="ordinal")
    )  # fmt: skip
    humans = ratings["humans"]
    assert first["humans"] == ["ann", "bob"]
    same(first["human_human"], human_human_alpha(humans, cats, boot))
    same(first["human_judge"], human_judge_alpha(ratings["greedy_labels"], humans, cats, boot))
    assert first["human_judge_judge"] == ratings["greedy"].name
    assert not first["human_judge_stand_in"]
    assert first["verdict"]["sentence"].startswith(("Within", "Outside"))
    assert (
        "test-retest alpha " + first["test_retest"]["alpha"]["text"] in first["verdict"]["sentence"]
    )

    # T = 1.2: only the first two sub-questions (12 items), for every figure.
    assert second["n_items"] == 12
    same(second["test_retest"]["alpha"], retest_agreement(ratings["t12"][:12], cats, boot).alpha)
    same(second["human_human"], human_human_alpha(humans[:12], cats, boot))

    chart = data["chart"]
    assert [t["name"] for t in chart["data"]] == ["T = 0.7 (3 repeats)", "T = 1.2 (2 repeats)"]
    bar = chart["data"][0]
    assert bar["x"] == ["test-retest", "human-human", "human-judge"]
    alpha = first["test_retest"]["alpha"]
    assert bar["y"][0] == alpha["value"]
    assert bar["error_y"]["array"][0] == pytest.approx(alpha["ci_high"] - alpha["value"])
    assert bar["error_y"]["arrayminus"][0] == pytest.approx(alpha["value"] - alpha["ci_low"])


def test_a_repeats_name_finds_the_same_family(ratings):
    by_repeat = build_self_consistency(
        ratings["collection"], f"{MODEL}@crux-rubric-v1~t0.7-s2", RESAMPLES
    )
    by_greedy = build_self_consistency(ratings["collection"], ratings["greedy"].name, RESAMPLES)
    assert by_repeat["groups"] == by_greedy["groups"]


def test_without_the_greedy_judge_a_repeat_stands_in_for_human_judge(ratings):
    ratings["greedy"].delete()
    data = build_self_consistency(ratings["collection"], f"{MODEL}@crux-rubric-v1~t0.7-s1")
    first = data["groups"][0]
    assert data["greedy_judge"] is None
    assert first["human_judge_judge"] == f"{MODEL}@crux-rubric-v1~t0.7-s1"
    assert first["human_judge_stand_in"]
    html = render_to_string(
        "evaluation/judge_report/_self_consistency.html", {"self_consistency": data}
    )
    assert "a repeat stands in" in html


@pytest.mark.parametrize("name", ["ann", "nobody", f"{MODEL}@crux-rubric-v3"])
def test_judges_with_nothing_to_show_get_none(ratings, name):
    llm("crux-rubric-v3")  # a greedy judge that was never re-run
    assert build_self_consistency(ratings["collection"], name) is None


def test_a_single_repeat_has_no_test_retest_figure(ratings):
    data = build_self_consistency(ratings["collection"], f"{MODEL}@crux-rubric-v2~t0.7-s1")
    (group,) = data["groups"]
    assert data["greedy_judge"] is None and group["n_items"] == 0
    assert group["test_retest"]["alpha"]["undefined"] == "fewer than 2 repeats of the judge"
    assert group["verdict"]["within"] is None
    assert group["verdict"]["sentence"] == (
        "The judge's test-retest alpha is undefined (fewer than 2 repeats of the judge)."
    )
    assert data["chart"]["data"][0]["y"][0] is None


def test_repeats_in_another_collection_are_not_this_ones(ratings):
    other = make_collection("elsewhere")
    make_topic(other, "t9")
    assert build_self_consistency(other, ratings["greedy"].name) is None


def test_umbrela_repeats_are_read_from_the_judges_qrels():
    collection = make_collection("trec-sc")
    topics = [make_topic(collection, f"q{i}", n_subquestions=0) for i in range(3)]
    passages = make_passages(collection, "d", 5)
    greedy = llm("umbrela-v1")
    labels = {}

    def grade(judge, rule):
        rows = [PassageQrel(topic=t, passage=p, grade=rule(ti, pi), source=judge.name)
                for ti, t in enumerate(topics) for pi, p in enumerate(passages)]  # fmt: skip
        PassageQrel.objects.bulk_create(rows)
        return np.array([r.grade for r in rows], float)

    labels["greedy"] = grade(greedy, lambda t, p: (t + p) % 4)
    repeats = np.column_stack([
        grade(llm(f"umbrela-v1~t0.7-s{s}"), lambda t, p, s=s: (t + p + (p * s) % 2) % 4)
        for s in (1, 2)
    ])  # fmt: skip
    nist = Judge.objects.create(name="nist", kind=Judge.Kind.HUMAN)
    labels["nist"] = grade(nist, lambda t, p: (t + p + 1) % 4 if p == 0 else (t + p) % 4)
    data = build_self_consistency(collection, greedy.name, RESAMPLES)
    boot = Bootstrap(n_resamples=RESAMPLES, seed=0)
    (group,) = data["groups"]
    assert data["labels"] == "qrels" and group["n_items"] == 15
    same(group["test_retest"]["alpha"], retest_agreement(repeats, range(4), boot).alpha)
    assert group["humans"] == ["nist"]
    assert group["human_human"]["value"] is None  # one person
    assert group["human_human"]["undefined"] == "fewer than 2 people labelled these items"
    same(
        group["human_judge"],
        human_judge_alpha(labels["greedy"], labels["nist"][:, None], range(4), boot),
    )
    assert group["verdict"]["within"] is None
    assert "no human-human alpha" in group["verdict"]["sentence"]


def test_the_partial_renders_the_verdict_chart_and_table(ratings):
    data = build_self_consistency(ratings["collection"], ratings["greedy"].name, RESAMPLES)
    html = render_to_string(
        "evaluation/judge_report/_self_consistency.html", {"self_consistency": data}
    )
    first = data["groups"][0]
    assert 'id="judge-report-self-consistency"' in html
    assert 'data-plotly-figure="self-consistency-data"' in html
    assert '<script id="self-consistency-data" type="application/json">' in html
    assert first["verdict"]["sentence"].replace("'", "&#x27;") in html
    assert first["test_retest"]["alpha"]["text"] in html
    assert first["human_human"]["text"] in html and "ann, bob" in html
    assert (
        render_to_string(
            "evaluation/judge_report/_self_consistency.html", {"self_consistency": None}
        ).strip()
        == ""
    )
