"""The SePer job on a hand-made QA collection with the scripted generator and word-overlap NLI:
rows per context, idempotent re-runs, Delta against the stored baseline, bad parameters."""

import dataclasses

import pytest

from crux_app.models import Job
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.seper.seper_job_data import (
    GOLD_TEXT,
    QUESTION,
    CountingModels,
    seper_collection,
    seper_job,
)

pytestmark = pytest.mark.django_db


def _rows(data) -> dict[tuple[str, str | None], SeperScore]:
    return {
        (r.context_kind, r.passage.external_id if r.passage else None): r
        for r in SeperScore.objects.filter(topic=data.topic).select_related("passage")
    }


def test_the_job_stores_one_row_per_context_of_each_topic_with_gold_answers():
    data, models = seper_collection(), CountingModels()
    job = run_seper_job(seper_job(data), models.models())
    assert job.state == Job.State.SUCCEEDED, job.errors
    rows = _rows(data)
    # k=2: the run's top two passages (noise, gold) alone and together; filler is rank 3.
    assert set(rows) == {("none", None), ("passage", "d1"), ("passage", "d0"), ("run", None),
                         ("oracle", None)}  # fmt: skip
    assert not SeperScore.objects.filter(topic=data.no_gold).exists()
    run_row = rows[("run", None)]
    assert (run_row.run_id, run_row.k) == (data.run.pk, 2)
    assert rows[("passage", "d0")].passage_id == data.gold.pk
    assert {r.generator for r in rows.values()} == {"test/scripted"}
    assert {r.nli for r in rows.values()} == {"test/word-nli"}
    assert rows[("none", None)].params["n_samples"] == 4
    # The gold passage makes every sample "Jane Austen"; without context half of them are.
    assert rows[("oracle", None)].seper_h == pytest.approx(1.0)
    assert rows[("passage", "d0")].seper_h == pytest.approx(1.0)
    assert rows[("passage", "d1")].seper_h == pytest.approx(0.0)
    assert rows[("none", None)].seper_h == pytest.approx(0.5)
    # One generator call for the whole batch: every prompt's samples drawn at once.
    assert models.loads == 1 and len(models.generator.calls) == 1
    detail = rows[("oracle", None)].detail
    assert GOLD_TEXT in detail["prompt"] and QUESTION in detail["prompt"]
    assert [r["text"] for r in detail["responses"]] == ["Jane Austen"] * 4
    assert detail["clusters"][0]["matches_gold"] is True
    assert job.done == job.total == 1 and "scored 5" in job.message


def test_delta_is_the_context_score_minus_the_baseline():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    rows = _rows(data)
    baseline = rows[("none", None)]
    assert baseline.delta_s is None and baseline.delta_h is None
    for key, row in rows.items():
        if key == ("none", None):
            continue
        assert row.delta_s == pytest.approx(row.seper_s - baseline.seper_s), key
        assert row.delta_h == pytest.approx(row.seper_h - baseline.seper_h), key
    assert rows[("passage", "d1")].delta_h == pytest.approx(-0.5)  # the noise passage hurts


def test_a_rerun_stores_nothing_new_and_never_loads_or_calls_the_generator():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    before = {r.pk: (r.seper_s, r.created_at) for r in SeperScore.objects.all()}
    again = CountingModels()
    job = run_seper_job(seper_job(data), again.models())
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert again.loads == 0 and again.generator.calls == [] and again.nli.calls == []
    assert {r.pk: (r.seper_s, r.created_at) for r in SeperScore.objects.all()} == before
    assert "already stored 5" in job.message


def test_a_larger_k_scores_only_the_new_contexts_against_the_stored_baseline():
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    baseline = _rows(data)[("none", None)]
    more = CountingModels()
    job = run_seper_job(seper_job(data, k=3), more.models())
    assert job.state == Job.State.SUCCEEDED, job.errors
    rows = _rows(data)
    assert ("passage", "d2") in rows and SeperScore.objects.filter(context_kind="run").count() == 2
    # New: the filler passage and the top-3 run; the baseline's samples came from its row.
    assert "scored 2" in job.message
    ((prompts, _),) = more.generator.calls
    assert len(prompts) == 2 and all("Context:" in p for p in prompts)
    filler = rows[("passage", "d2")]
    assert filler.delta_h == pytest.approx(filler.seper_h - baseline.seper_h)
    assert filler.seper_h == pytest.approx(0.5)


def test_a_job_scores_only_its_topic_and_the_baseline_and_oracle_without_a_run():
    data = seper_collection()
    job = seper_job(data, run_id=None)
    job.topic = data.topic
    job.save()
    run_seper_job(job, CountingModels().models())
    assert set(_rows(data)) == {("none", None), ("oracle", None)}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k": 0}, "'k' must be an integer in 1..100"),
        ({"temperature": 0}, "'temperature' must be a number in 0.01..5"),
        ({"n_samples": "ten"}, "'n_samples' must be an integer"),
        ({"run_id": 999999}, "run id 999999 does not exist"),
    ],
)
def test_bad_parameters_fail_the_job_naming_the_field(params, message):
    data, models = seper_collection(), CountingModels()
    job = run_seper_job(seper_job(data, **params), models.models())
    assert job.state == Job.State.FAILED
    assert message in job.message
    assert models.loads == 0 and not SeperScore.objects.exists()


def test_a_loaded_model_that_is_not_the_jobs_model_fails_the_batch_and_stores_nothing():
    data, counting = seper_collection(), CountingModels()
    models = dataclasses.replace(counting.models(), nli_id="other/nli")
    job = run_seper_job(seper_job(data), models)
    assert job.state == Job.State.FAILED
    message = job.errors[0]["message"]
    assert "loaded NLI model 'test/word-nli' is not the job's NLI model 'other/nli'" in message
    assert not SeperScore.objects.exists()
