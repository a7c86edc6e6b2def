"""The generate_answers job: prompts, idempotent storage, failures and retries (fake generator)."""

import pytest

from crux_app.jobs.service import retry_job
from crux_app.models import GeneratedOutput, Job, OutputContext
from evaluation.answers.generation import (
    AnswerRequest,
    ContextPassage,
    answer_external_id,
    answer_system_name,
    build_answer_prompt,
    generate_answers,
    greedy_answer_params,
)
from evaluation.answers.job import AnswerJobParams, run_answer_job
from evaluation.backends.base import Generation
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.backends.fake_generator import RecordingGenerator


def test_prompt_with_context_follows_the_short_answer_template():
    prompt = build_answer_prompt(" Who wrote it? ", ["First passage.", "  ", "Second one. "])
    assert prompt == (
        "Answer the following question as briefly as possible.\n"
        "Context: First passage.\nSecond one.\n"
        "Question: Who wrote it?\n"
        "Answer:"
    )


def test_prompt_without_context_omits_the_context_line():
    prompt = build_answer_prompt("Who wrote it?", [])
    assert prompt == (
        "Answer the following question as briefly as possible.\nQuestion: Who wrote it?\nAnswer:"
    )
    assert build_answer_prompt("Who?", ["   "]) == build_answer_prompt("Who?")


def test_system_names_and_external_ids_are_deterministic():
    assert answer_system_name("bm25", 5) == "rag:bm25@5"
    assert answer_system_name(None, 5) == "closed-book"
    assert answer_external_id("rag:bm25@5", "q1") == "rag:bm25@5/q1"


def test_greedy_params_stop_at_newline():
    params = greedy_answer_params(16)
    assert (params.temperature, params.num_samples, params.max_new_tokens) == (0.0, 1, 16)
    assert params.stop == ("\n",)


def test_generate_answers_batches_prompts_and_keeps_the_first_sample():
    generator = RecordingGenerator()
    requests = [
        AnswerRequest("a", "Q1?", (ContextPassage("7", "Ctx."),)),
        AnswerRequest("b", "Q2?"),
    ]
    answers = generate_answers(requests, generator, greedy_answer_params())
    assert len(generator.calls) == 1
    assert generator.prompts == [build_answer_prompt("Q1?", ["Ctx."]), build_answer_prompt("Q2?")]
    assert [a.request.key for a in answers] == ["a", "b"]
    assert [a.generation.text for a in answers] == [" answer-0", " answer-1"]
    assert generate_answers([], generator, greedy_answer_params()) == []


class ShortGenerator(RecordingGenerator):
    def generate(self, prompts, params):
        return [[Generation(text="x")]]  # one result whatever the number of prompts


def test_generate_answers_rejects_a_generator_that_drops_prompts():
    requests = [AnswerRequest("a", "Q1?"), AnswerRequest("b", "Q2?")]
    with pytest.raises(ValueError, match="returned 1 results for 2 prompts"):
        generate_answers(requests, ShortGenerator(), greedy_answer_params())


def _job(data, **params) -> Job:
    config = AnswerJobParams(run_id=data.run.pk, **params)
    return Job.objects.create(
        kind="generate_answers", params=config.as_params(data.run), collection=data.collection
    )


@pytest.mark.django_db
def test_rag_job_stores_answers_with_tokens_and_ranked_context():
    data = make_answer_collection(n_topics=3, passages_per_topic=4)
    generator = RecordingGenerator()
    job = run_answer_job(_job(data, k=2, batch_size=2), lambda: generator)

    assert job.state == Job.State.SUCCEEDED
    assert (job.done, job.total, job.attempts) == (3, 3, 1)
    assert job.message == "generated 3, already stored 0"
    assert len(generator.calls) == 2  # batches of 2 and 1 topics
    outputs = GeneratedOutput.objects.filter(collection=data.collection).order_by("external_id")
    assert [o.external_id for o in outputs] == ["rag:bm25@2/q0", "rag:bm25@2/q1", "rag:bm25@2/q2"]
    first = outputs[0]
    assert first.kind == GeneratedOutput.Kind.ANSWER
    assert first.system == "rag:bm25@2"
    assert first.generator == RecordingGenerator.model_id
    assert first.run == data.run
    assert first.context_type == "top-2"
    assert first.text == " answer-0"
    assert first.tokens == [" answer", "-", "0"]
    assert first.token_logprobs == [-0.5, -0.25, -0.125]
    assert first.metadata["token_ids"] == [11, 12, 13]
    assert first.metadata["job_id"] == job.pk
    context = list(OutputContext.objects.filter(output=first).values_list("passage", "position"))
    assert context == [(data.passages["q0"][0].pk, 0), (data.passages["q0"][1].pk, 1)]
    # The model saw the question and exactly the two top-ranked passages, in rank order.
    prompt = generator.prompts[0]
    assert "Question: What is the capital of France?" in prompt
    assert f"Context: {data.passages['q0'][0].text}\n{data.passages['q0'][1].text}\n" in prompt
    assert data.passages["q0"][2].text not in prompt


@pytest.mark.django_db
def test_closed_book_job_has_no_context():
    data = make_answer_collection(n_topics=2)
    job = Job.objects.create(
        kind="generate_answers",
        params=AnswerJobParams(run_id=None).as_params(),
        collection=data.collection,
    )
    generator = RecordingGenerator()
    assert run_answer_job(job, lambda: generator).state == Job.State.SUCCEEDED
    outputs = GeneratedOutput.objects.filter(collection=data.collection)
    assert {o.system for o in outputs} == {"closed-book"}
    assert {o.context_type for o in outputs} == {"none"}
    assert not OutputContext.objects.filter(output__in=outputs).exists()
    assert all("Context:" not in p for p in generator.prompts)


@pytest.mark.django_db
def test_passages_without_text_are_left_out_of_the_context():
    data = make_answer_collection(n_topics=1, passages_per_topic=3)
    missing = data.passages["q0"][0]
    missing.text, missing.has_text = "", False
    missing.save()
    generator = RecordingGenerator()
    run_answer_job(_job(data, k=2), lambda: generator)
    output = GeneratedOutput.objects.get(collection=data.collection)
    assert list(output.context.values_list("passage", flat=True)) == [data.passages["q0"][1].pk]


@pytest.mark.django_db
def test_rerun_does_no_model_work_and_never_duplicates():
    data = make_answer_collection(n_topics=3)
    first = run_answer_job(_job(data), RecordingGenerator)
    assert first.state == Job.State.SUCCEEDED
    before = list(GeneratedOutput.objects.order_by("pk").values_list("pk", "text"))

    def no_model():
        raise AssertionError("the model was asked for although every answer is stored")

    # A new job over the same scope (a finished job's own task changes nothing: issue #24).
    again = run_answer_job(_job(data), no_model)
    assert again.state == Job.State.SUCCEEDED
    assert (again.done, again.total, again.attempts) == (3, 3, 1)
    assert again.message == "generated 0, already stored 3"
    assert list(GeneratedOutput.objects.order_by("pk").values_list("pk", "text")) == before
    assert OutputContext.objects.count() == 3 * 3


@pytest.mark.django_db
def test_single_topic_job_answers_only_that_topic():
    data = make_answer_collection(n_topics=3)
    job = _job(data)
    job.topic = data.topics[1]
    job.save()
    run_answer_job(job, RecordingGenerator)
    assert list(GeneratedOutput.objects.values_list("external_id", flat=True)) == ["rag:bm25@5/q1"]


@pytest.mark.django_db
def test_failed_batch_is_recorded_and_a_retry_fills_only_the_gap():
    data = make_answer_collection(n_topics=3)
    job = _job(data, batch_size=1)
    faulty = RecordingGenerator(fail_on="largest planet")  # topic q1
    job = run_answer_job(job, lambda: faulty)

    assert job.state == Job.State.FAILED
    assert job.done == 2 and job.total == 3
    assert job.message == "1 of 3 batches failed; generated 2, already stored 0"
    assert len(job.errors) == 3  # the first try and two retries (JOB_BATCH_RETRIES = 2)
    assert {e["batch"] for e in job.errors} == {1}
    assert [e["try_number"] for e in job.errors] == [1, 2, 3]
    assert job.errors[0]["message"] == "RuntimeError: model fault on 'largest planet'"
    assert "Traceback" in job.errors[0]["traceback"]
    assert "RuntimeError" in job.errors[0]["traceback"]
    assert set(GeneratedOutput.objects.values_list("external_id", flat=True)) == {
        "rag:bm25@5/q0",
        "rag:bm25@5/q2",
    }

    healthy = RecordingGenerator()
    job = run_answer_job(retry_job(job), lambda: healthy)
    assert job.state == Job.State.SUCCEEDED
    assert job.done == job.total == 3
    assert len(healthy.prompts) == 1 and "largest planet" in healthy.prompts[0]
    assert GeneratedOutput.objects.count() == 3
    assert len(job.errors) == 3  # the history of the failed attempt is kept


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k": 0}, "job parameter 'k' must be an integer in 1..100, got 0"),
        ({"batch_size": "2"}, "job parameter 'batch_size' must be an integer in 1..512, got '2'"),
        ({"run_id": "bm25"}, "job parameter 'run_id' must be a run id or null, got 'bm25'"),
    ],
)
def test_bad_parameters_fail_the_job_naming_the_field(params, message):
    data = make_answer_collection(n_topics=1)
    job = Job.objects.create(kind="generate_answers", params=params, collection=data.collection)
    job = run_answer_job(job, RecordingGenerator)
    assert job.state == Job.State.FAILED
    assert job.message == message
    assert job.errors[0]["message"] == f"ParameterError: {message}"
    assert not GeneratedOutput.objects.exists()


@pytest.mark.django_db
def test_run_of_another_collection_fails_the_job():
    data = make_answer_collection("qa-a", n_topics=1)
    other = make_answer_collection("qa-b", n_topics=1)
    job = Job.objects.create(
        kind="generate_answers", params={"run_id": other.run.pk}, collection=data.collection
    )
    job = run_answer_job(job, RecordingGenerator)
    assert job.state == Job.State.FAILED
    assert job.message == f"run id {other.run.pk} does not exist in collection 'qa-a'"
