"""The dense job on rule-based models: stored rows, idempotency, bad parameters."""

import math

import pytest

from crux_app.models import Job
from evaluation.dense.job import DenseJobParams
from evaluation.dense.method.graph import CERTAIN, NECESSARY, UNNECESSARY
from evaluation.dense.models import DenseResult
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = pytest.mark.django_db


def test_job_stores_one_row_per_question_with_graph_labels_and_refinement():
    data, models = make_dense_data(), RuleModels()
    job = run_job(data, models.models())
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "evaluated 2"
    capital = DenseResult.objects.get(topic=data.capital)
    assert capital.dse == pytest.approx(math.log(2))
    assert capital.uncertain and capital.answer == "Paris" and capital.correct is True
    d = capital.detail
    assert d["labels"] == [NECESSARY, CERTAIN, UNNECESSARY]
    assert d["passage_ids"] == [p.pk for p in data.passages[:3]]
    assert d["pool_passage_ids"] == [p.pk for p in data.passages]
    assert len(d["W"]) == 4 and all(len(row) == 4 for row in d["W"])
    assert d["refinement"]["final_context"] == [1, 3]
    assert capital.final_answer == "Paris" and capital.final_dse == 0.0
    assert capital.final_correct is True
    assert d["calls"]["questions_in_batch"] == 2 and d["calls"]["llm_inferences"] > 0
    cheese = DenseResult.objects.get(topic=data.cheese)
    # [C3] -> unknown under both contexts: certain, not refined, wrong against gold "yes".
    assert cheese.dse == 0.0 and not cheese.uncertain and cheese.correct is False
    assert cheese.detail["refinement"] is None and cheese.final_answer == "unknown"
    assert capital.params["embedder"] == "test/word-embedder" and capital.k == 3


def test_a_second_run_stores_nothing_and_loads_no_model():
    data, models = make_dense_data(), RuleModels()
    run_job(data, models.models())
    loads = models.loads
    again = run_job(data, models.models())
    assert again.state == Job.State.SUCCEEDED and again.message == "already stored 2"
    assert models.loads == loads
    assert DenseResult.objects.count() == 2
    # Other settings are other rows.
    third = run_job(data, models.models(), threshold=1.0)
    assert third.message == "evaluated 2"
    assert DenseResult.objects.count() == 4


def test_a_model_fault_fails_the_batch_and_is_recorded():
    data, models = make_dense_data(), RuleModels()
    models.generator.rephrases = None  # .get on None raises inside generate
    job = run_job(data, models.models())
    assert job.state == Job.State.FAILED
    assert "AttributeError" in job.errors[0]["message"]
    assert DenseResult.objects.count() == 0


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "'run_id' must be a run id"),
        ({"run_id": 1, "k": 0}, "'k' must be an integer in 1..20"),
        ({"run_id": 1, "threshold": "high"}, "'threshold' must be a number"),
        ({"run_id": 1, "refine": "yes"}, "'refine' must be true or false"),
        ({"run_id": 1, "k": 5, "pool": 3}, "'pool' \\(3\\) must be >= k \\(5\\)"),
    ],
)
def test_bad_parameters_name_the_field(params, message):
    with pytest.raises(ValueError, match=message):
        DenseJobParams.from_params(params)


def test_unknown_run_fails_the_job_with_its_id():
    data, models = make_dense_data(), RuleModels()
    job = Job.objects.create(kind="dense", params={"run_id": 999999}, collection=data.collection)
    from evaluation.dense.job import run_dense_job

    job = run_dense_job(job, models.models())
    assert job.state == Job.State.FAILED and "run id 999999" in job.message
