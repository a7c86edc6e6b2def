"""The judging job with the UMBRELA rubric (0-3 grades of (query, passage) pairs stored as the
judge's qrels) and sampled repeats (temperature, seed, a seeded sample of the items), with a
scripted judge model on a small TREC-style collection."""

import io
import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from crux_app.models import Job, Judge, Judgment, Passage
from evaluation.backends.base import GenerationParams
from evaluation.crux.job import KIND, JudgeJobParams, run_judge_job
from evaluation.crux.judge_scope import PairKey, plan_items, sample_items
from evaluation.crux.method.relevance_prompts import UMBRELA_V1
from evaluation.leaderboard.columns import LeaderboardParams, column_values
from tests.crux_app.factories import make_small_collection
from tests.evaluation.crux.fake_judge import ScriptedJudge, no_model
from tests.evaluation.crux.trec_judging import make_trec_collection, reference_ndcg, stored_qrels

pytestmark = pytest.mark.django_db

# The scripted judge's grade of "passage text N": d7's answer is out of scale (unparsable).
GRADES = {0: "3", 1: "1", 2: "0", 3: "2", 4: " 1", 5: "Grade: 0", 6: "2", 7: "4"}
JUDGE = f"{ScriptedJudge.model_id}@umbrela-v1"
# Every run's top 10 and NIST's qrels: 101 d0-d2, 102 d3-d4, 103 d5-d7 and d9 (no text).
POOL = {
    ("101", "d0"): 3, ("101", "d1"): 1, ("101", "d2"): 0, ("102", "d3"): 2, ("102", "d4"): 1,
    ("103", "d5"): 0, ("103", "d6"): 2,
}  # fmt: skip
RUNS = ["bm25", "dense", "hybrid"]


def grade_by_passage(prompt: str) -> str:
    return GRADES[int(re.search(r"Passage: passage text (\d)", prompt).group(1))]


def umbrela_job(collection, **params) -> Job:
    params = JudgeJobParams(rubric="umbrela", **params).as_params()
    return Job.objects.create(kind=KIND, params=params, collection=collection)


@pytest.fixture
def trec(tmp_path):
    return make_trec_collection(tmp_path / "trec")


def test_umbrela_grades_become_the_judges_qrels_and_rank_the_runs(trec):
    judge_model = ScriptedJudge(reply=grade_by_passage)
    job = run_judge_job(umbrela_job(trec, batch_size=3), judge_model.as_model())

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "judged 8, unparsable 1, already judged 0, skipped (no text) 1"
    judge = Judge.objects.get(name=JUDGE)
    assert (judge.kind, judge.model_id, judge.prompt_version) == (
        "llm", ScriptedJudge.model_id, "umbrela-v1",
    )  # fmt: skip
    assert job.params["judge"] == JUDGE
    assert stored_qrels(JUDGE) == POOL  # d7 unparsable: no qrel; d9 has no text
    assert not Judgment.objects.exists()  # qrels, not sub-question ratings
    assert stored_qrels("nist")[("101", "d0")] == 2  # the human judge's qrels are untouched
    assert UMBRELA_V1.render("black bear attacks", "passage text 0") in judge_model.prompts
    assert {p.max_new_tokens for _, p in judge_model.calls} == {5}
    assert {(p.temperature, p.seed) for _, p in judge_model.calls} == {(0.0, None)}

    # nDCG@k (and the rest) under this judge's qrels, as under any imported qrels source.
    board = column_values(trec, LeaderboardParams(qrels_source=JUDGE, k=10), RUNS)
    expected = reference_ndcg(JUDGE, 10)
    assert board["ndcg"] == pytest.approx(expected)
    assert board["ndcg"] != pytest.approx(
        column_values(trec, LeaderboardParams(qrels_source="nist", k=10), RUNS)["ndcg"]
    )

    # Again: only the unparsable pair is asked again; nothing else is graded twice.
    again = ScriptedJudge(reply=grade_by_passage)
    job = run_judge_job(umbrela_job(trec), again.as_model())
    assert job.message == "judged 1, unparsable 1, already judged 7, skipped (no text) 1"
    assert len(again.prompts) == 1 and "passage text 7" in again.prompts[0]


def test_a_finished_umbrela_job_asks_no_model_again(trec):
    reply = lambda prompt: "2"  # noqa: E731
    run_judge_job(umbrela_job(trec), ScriptedJudge(reply=reply).as_model())
    job = run_judge_job(umbrela_job(trec), no_model)
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "already judged 8, skipped (no text) 1"


def test_the_judge_report_reads_the_llm_judges_qrels(trec):
    run_judge_job(umbrela_job(trec), ScriptedJudge(reply=grade_by_passage).as_model())
    out = io.StringIO()
    call_command(
        "judge_report", "--collection", "trec", "--judges", "nist", JUDGE, "--metric", "ndcg",
        "--k", "10", "--resamples", "50", stdout=out,
    )  # fmt: skip
    runs = {r["run"]: r["score_b"] for r in json.loads(out.getvalue())["run_ranking"]["runs"]}
    # The report's mean is over the topics both judges score; here every relevant topic.
    assert runs == pytest.approx(reference_ndcg(JUDGE, 10))


def test_sampled_repeats_are_judges_of_their_own_on_one_seeded_sample(trec):
    greedy = ScriptedJudge(reply=grade_by_passage)
    job = run_judge_job(umbrela_job(trec, sample_size=4), greedy.as_model())
    assert "sample of 4 of 8 items (seed 0)" in job.message
    sampled = {(k.topic_id, k.passage_id) for k in sample_items(_text_pairs(trec), 4, 0)}
    assert len(sampled) == 4
    assert {_pair_of(trec, prompt) for prompt in greedy.prompts} == sampled
    other = JudgeJobParams(rubric="umbrela", sample_size=4, sample_seed=1)
    assert sample_items(_text_pairs(trec), 4, 1) != sample_items(_text_pairs(trec), 4, 0)
    assert len(plan_items(other.scope_spec(trec, None), None).missing) == 4

    for seed in (1, 2):
        model = ScriptedJudge(reply=grade_by_passage)
        job = run_judge_job(umbrela_job(trec, sample_size=4, temperature=0.7, seed=seed),
                            model.as_model())  # fmt: skip
        assert job.state == Job.State.SUCCEEDED, job.errors
        name = f"{JUDGE}~t0.7-s{seed}"
        assert job.params["judge"] == name
        assert Judge.objects.get(name=name).prompt_version == f"umbrela-v1~t0.7-s{seed}"
        assert {(p.temperature, p.seed) for _, p in model.calls} == {(0.7, seed)}
        asked = {_pair_of(trec, prompt) for prompt in model.prompts}
        assert asked == sampled  # every repeat rates the greedy judge's sample
        assert "sample of 4 of 8 items (seed 0)" in job.message
    assert Judge.objects.filter(model_id=ScriptedJudge.model_id).count() == 3


def _text_pairs(collection) -> list[PairKey]:
    spec = JudgeJobParams(rubric="umbrela").scope_spec(collection, None)
    return sorted(plan_items(spec, None).missing)


def _pair_of(collection, prompt: str) -> tuple[int, int]:
    query = re.search(r"Query: (.*)\n", prompt).group(1)
    number = re.search(r"Passage: passage text (\d)", prompt).group(1)
    topic = collection.topics.get(request=query)
    return topic.pk, Passage.objects.get(collection=collection, external_id=f"d{number}").pk


def test_a_crux_repeat_stores_ratings_under_its_own_identity():
    data = make_small_collection()
    model = ScriptedJudge(reply=lambda prompt: " 4")
    params = JudgeJobParams(temperature=0.5, seed=3, sample_size=2).as_params()
    job = Job.objects.create(kind=KIND, params=params, collection=data.collection)
    job = run_judge_job(job, model.as_model())
    assert job.state == Job.State.SUCCEEDED, job.errors
    judge = Judge.objects.get(model_id=ScriptedJudge.model_id)
    assert judge.prompt_version == "crux-rubric-v1~t0.5-s3"
    assert judge.name == f"{ScriptedJudge.model_id}@crux-rubric-v1~t0.5-s3"
    assert Judgment.objects.filter(judge=judge, rating=4).count() == 2
    assert model.calls[0][1] == GenerationParams(max_new_tokens=5, temperature=0.5, seed=3)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rubric": "umbrela", "scope": "outputs"}, "scope 'outputs' is CRUX's only"),
        ({"rubric": "umbrela", "method": "distribution"}, "its method must be 'llm'"),
        ({"rubric": "umbrela", "method": "embedding"}, "its method must be 'llm'"),
        ({"rubric": "trec"}, "job parameter 'rubric' must be one of crux, umbrela"),
        ({"rubric": "umbrela", "prompt_version": "crux-rubric-v1"}, "unknown prompt version"),
        ({"prompt_version": "umbrela-v1"}, "unknown prompt version 'umbrela-v1' of the crux"),
        ({"temperature": 0.7, "method": "distribution"}, "temperature > 0 samples the LLM"),
        ({"temperature": 2.5}, "'temperature' must be a number in 0..2"),
        ({"temperature": 0.123}, "at most 2 decimals"),
        ({"temperature": "hot"}, "'temperature' must be a number"),
        ({"temperature": 0.5, "seed": -1}, "'seed' must be an integer in 0..2147483647"),
        ({"sample_size": 0}, "'sample_size' must be an integer in 1..1000000"),
        ({"sample_seed": "x"}, "'sample_seed' must be an integer"),
    ],
)
def test_bad_combinations_fail_the_job_naming_the_field(params, message):
    data = make_small_collection()
    job = Job.objects.create(kind=KIND, params=params, collection=data.collection)
    job = run_judge_job(job, no_model)
    assert job.state == Job.State.FAILED
    assert message in job.message
    assert not Judge.objects.filter(model_id=ScriptedJudge.model_id).exists()


def test_the_identity_round_trips_through_the_jobs_params():
    config = JudgeJobParams.from_params({"rubric": "umbrela", "temperature": 1, "seed": 9})
    assert config.prompt_version == "umbrela-v1~t1-s9"
    assert JudgeJobParams.from_params(config.as_params()) == config
    default_seed = JudgeJobParams.from_params({"temperature": 0.3})
    assert (default_seed.seed, default_seed.prompt_version) == (0, "crux-rubric-v1~t0.3-s0")
    assert JudgeJobParams.from_params({}).prompt_version == "crux-rubric-v1"


def test_the_form_starts_an_umbrela_repeat_and_refuses_what_the_job_would(researcher_client, trec):
    url = reverse("crux-start", args=[trec.pk])
    page = researcher_client.get(url).content.decode()
    assert 'name="rubric"' in page and 'name="temperature"' in page
    assert 'name="seed"' in page and 'name="sample_size"' in page

    count = researcher_client.get(
        reverse("crux-start-count", args=[trec.pk]),
        {"rubric": "umbrela", "temperature": "0.7", "seed": "2", "sample_size": "3"},
    )
    text = count.content.decode()
    assert count.status_code == 200
    assert "<b>3 items to judge</b>" in text and "sample of the 8 items with text" in text
    assert "umbrela-v1~t0.7-s2" in text and "qrels source" in text

    response = researcher_client.post(
        url, {"scope": "collection", "rubric": "umbrela", "temperature": "0.7", "seed": "2"}
    )
    job = Job.objects.get()
    assert response.status_code == 302
    config = JudgeJobParams.from_params(job.params)
    assert (config.rubric, config.temperature, config.seed) == ("umbrela", 0.7, 2)

    for bad, error in [
        ({"rubric": "umbrela", "method": "distribution"}, "its method must be"),
        ({"temperature": "3"}, "less than or equal to 2"),
        ({"temperature": "0.555"}, "2 decimal places"),
        ({"seed": "4"}, "A seed is for sampling"),
        ({"sample_size": "0"}, "greater than or equal to 1"),
    ]:
        response = researcher_client.post(url, {"scope": "collection", **bad})
        assert response.status_code == 400 and error in response.content.decode(), bad
    assert Job.objects.count() == 1


def test_the_command_grades_qrels_and_runs_repeats(trec, monkeypatch):
    model = ScriptedJudge(reply=grade_by_passage)
    monkeypatch.setattr("evaluation.crux.tasks.judge_model_for", model.as_model())
    out = io.StringIO()
    call_command("judge", "--collection", "trec", "--rubric", "umbrela", stdout=out,
                 stderr=io.StringIO())  # fmt: skip
    assert f"judge {JUDGE}: judged 8, unparsable 1" in out.getvalue()
    assert f"qrels source {JUDGE}: 7 qrels" in out.getvalue()
    out = io.StringIO()
    call_command("judge", "--collection", "trec", "--rubric", "umbrela", "--temperature", "0.7",
                 "--seed", "5", "--sample-size", "3", stdout=out, stderr=io.StringIO())  # fmt: skip
    assert f"judge {JUDGE}~t0.7-s5: judged 3" in out.getvalue()
    with pytest.raises(CommandError, match="--seed: A seed is for sampling"):
        call_command("judge", "--collection", "trec", "--seed", "5", stdout=io.StringIO())
    with pytest.raises(CommandError, match="scope 'outputs' is CRUX's only"):
        call_command("judge", "--collection", "trec", "--rubric", "umbrela", "--reports",
                     stdout=io.StringIO())  # fmt: skip
