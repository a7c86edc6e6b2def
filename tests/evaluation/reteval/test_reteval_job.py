"""The reteval job on scripted models: what it stores, idempotency, undefined verdicts, bad
parameters."""

import pytest

from crux_app.models import GeneratedOutput, Job, PassageQrel
from evaluation.reteval.job import KIND, RetEvalJobParams, RetEvalModels, run_reteval_job
from evaluation.reteval.method.prompts import PROMPT_VERSION
from evaluation.reteval.models import Comparison, RetEvalResult
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario, scripted_models

pytestmark = pytest.mark.django_db


def _results(data):
    return {
        (r.topic.external_id, r.k): r
        for r in RetEvalResult.objects.filter(run=data.run).select_related("topic")
    }


def test_job_stores_answers_comparisons_and_prelabelled_results():
    data = make_reteval_collection()
    job, generator, judge = run_scenario(data)
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert (job.done, job.total) == (3, 3)

    semi = GeneratedOutput.objects.filter(system="semi-gold").order_by("external_id")
    assert [o.external_id for o in semi] == [
        f"semi-gold/{q}/{i}" for q in ("q1", "q2", "q3") for i in (1, 2)
    ]
    q2_semi = semi.get(external_id="semi-gold/q2/1")
    assert q2_semi.text == "carbon dioxide" and q2_semi.kind == GeneratedOutput.Kind.ANSWER
    assert [c.passage.external_id for c in q2_semi.context.all()] == ["q2-gold"]
    semi_call = generator.calls[0][1]
    assert (semi_call.num_samples, semi_call.temperature) == (2, 0.5)
    assert generator.prompts[0].startswith("Please read the question provided below")

    rag = GeneratedOutput.objects.get(external_id="reteval:bm25@2/q2")
    assert (rag.text, rag.run, rag.context_type) == ("Nitrogen", data.run, "top-2")
    assert [c.passage.external_id for c in rag.context.order_by("position")] == ["q2-x", "q2-gold"]

    # 3 questions x 2 k x 2 semi-gold answers, each judged once.
    assert Comparison.objects.count() == 12
    assert len(judge.prompts) == 12
    comparison = Comparison.objects.get(rag_output=rag, reference=q2_semi)
    assert (comparison.raw_output, comparison.verdict) == ("No", False)
    assert comparison.prompt.startswith("You are CompareGPT")
    assert "Prediction: Nitrogen" in comparison.prompt
    assert (comparison.judge, comparison.prompt_version) == ("test/judge", PROMPT_VERSION)

    results = _results(data)
    assert len(results) == 6
    q1 = results[("q1", 1)]
    assert (q1.recall, q1.precision, q1.verdict, q1.category) == (1.0, 1.0, True, "")
    assert (q1.n_yes, q1.n_no, q1.n_unparsable, q1.answer_correct) == (2, 0, 0, True)
    assert (results[("q2", 1)].recall, results[("q2", 1)].verdict) == (0.0, False)
    assert results[("q2", 1)].category == ""
    q2 = results[("q2", 2)]
    assert (q2.recall, q2.precision, q2.f1, q2.verdict) == (1.0, 0.5, pytest.approx(2 / 3), False)
    assert (q2.category, q2.answer_correct) == ("C", False)
    assert q2.category_reason == "1 non-gold passage(s) retrieved beside the gold one"
    assert results[("q3", 1)].category == "A" and results[("q3", 2)].category == "A"


def test_a_rerun_with_everything_stored_loads_no_model():
    data = make_reteval_collection()
    run_scenario(data)
    before = {key: (r.verdict, r.category) for key, r in _results(data).items()}

    def no_model():
        raise AssertionError("a model was loaded although everything is stored")

    params = RetEvalJobParams(run_id=data.run.pk, ks=(1, 2), n_semi_gold=2)
    job = Job.objects.create(
        kind=KIND, params=params.as_params(data.run), collection=data.collection
    )
    job = run_reteval_job(job, RetEvalModels("test/generator", "test/judge", no_model, no_model))
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert "semi-gold generated 0" in job.message and "judged 0" in job.message
    assert {key: (r.verdict, r.category) for key, r in _results(data).items()} == before
    assert Comparison.objects.count() == 12
    assert GeneratedOutput.objects.filter(collection=data.collection).count() == 12


def test_unparsable_judge_outputs_leave_the_verdict_undefined():
    data = make_reteval_collection()
    job, _, _ = run_scenario(data, ks=(1,), judge_reply=lambda prompt, i: "Maybe.")
    assert job.state == Job.State.SUCCEEDED
    results = _results(data)
    assert all(r.verdict is None and r.n_unparsable == 2 for r in results.values())
    assert all(r.category == "" for r in results.values())  # no verdict, no disagreement
    assert set(Comparison.objects.values_list("raw_output", flat=True)) == {"Maybe."}


def test_the_topic_of_a_job_limits_it_to_one_question():
    data = make_reteval_collection()
    params = RetEvalJobParams(run_id=data.run.pk, ks=(1,), n_semi_gold=1)
    _, _, job_models = scripted_models()
    job = Job.objects.create(
        kind=KIND,
        params=params.as_params(data.run),
        collection=data.collection,
        topic=data.topics["q2"],
    )
    job = run_reteval_job(job, job_models)
    assert job.total == 1
    assert list(RetEvalResult.objects.values_list("topic__external_id", flat=True)) == ["q2"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"run_id": "bm25"}, "job parameter 'run_id' must be a run id"),
        ({"ks": [1, "5"]}, "job parameter 'ks' must be a list of integers in 1..100"),
        ({"ks": []}, "job parameter 'ks' must be a list of integers in 1..100"),
        ({"n_semi_gold": 0}, "job parameter 'n_semi_gold' must be an integer in 1..10"),
        ({"temperature": 0}, "job parameter 'temperature' must be a number in 0.01..2"),
        ({"run_id": 999999}, "run id 999999 does not exist in collection 'qa-reteval'"),
    ],
)
def test_bad_parameters_fail_the_job_naming_the_field(params, message):
    data = make_reteval_collection()
    _, _, job_models = scripted_models()
    job = Job.objects.create(
        kind=KIND, params={"run_id": data.run.pk, **params}, collection=data.collection
    )
    job = run_reteval_job(job, job_models)
    assert job.state == Job.State.FAILED
    assert message in job.message
    assert not RetEvalResult.objects.exists()


def test_a_collection_without_gold_passages_fails_clearly():
    data = make_reteval_collection()
    PassageQrel.objects.all().delete()
    _, _, job_models = scripted_models()
    params = RetEvalJobParams(run_id=data.run.pk)
    job = Job.objects.create(
        kind=KIND, params=params.as_params(data.run), collection=data.collection
    )
    job = run_reteval_job(job, job_models)
    assert job.state == Job.State.FAILED
    assert "no question with gold passages (qa_gold qrels) that run 'bm25' ranks" in job.message
