"""The judging job: which items each scope covers, idempotent storage, unparsable outputs,
retried batches and bad parameters (scripted judge model)."""

import pytest

from crux_app.models import Job, Judge, Judgment, Passage, SubQuestion, Topic
from evaluation.crux.job import KIND, JudgeJobParams, JudgeModel, run_judge_job
from evaluation.crux.judge_scope import COLLECTION, OUTPUTS, RUN, ScopeSpec, plan_items
from evaluation.crux.method.judge_prompts import CRUX_RUBRIC_V1, DEFAULT_PROMPT_VERSION
from tests.crux_app.factories import make_small_collection
from tests.evaluation.crux.fake_judge import ScriptedJudge, no_model

pytestmark = pytest.mark.django_db

T, OTHER = "duc04-testb-3", "duc04-testb-7"


def _p(i: int) -> str:
    return f"{T}:0#{i}"


def _readable(keys) -> set[tuple[str, int, str]]:
    """(topic, sub-question position, passage or output external id) of each item key."""
    topics = dict(Topic.objects.values_list("pk", "external_id"))
    positions = dict(SubQuestion.objects.values_list("pk", "position"))
    passages = dict(Passage.objects.values_list("pk", "external_id"))
    return {
        (topics[k.topic_id], positions[k.subquestion_id], passages.get(k.target_id, k.target_id))
        for k in keys
    }


def _items(topic: str, positions, passages) -> set[tuple[str, int, str]]:
    return {(topic, q, p) for q in positions for p in passages}


def _judge() -> Judge:
    return Judge.objects.create(
        name="j", kind=Judge.Kind.LLM, model_id="m", prompt_version=DEFAULT_PROMPT_VERSION
    )


# The small collection: topic T has real sub-questions 0, 1, 3 (2 is a placeholder) and
# passages 0-5 (5 has no text); bm25 ranks 0-3, dense ranks 3, 0; qrels 0 and 4; passages 0, 1
# and 5 are already rated by two other judges. Topic OTHER has sub-questions 0, 1, and dense
# ranks passage 0 for it. One report (system bm25) answers topic T.
@pytest.mark.parametrize(
    ("scope", "run", "k", "topic", "expected", "skipped"),
    [
        (COLLECTION, None, 10, None,
         _items(T, [0, 1, 3], [_p(i) for i in range(5)]) | _items(OTHER, [0, 1], [_p(0)]), 3),
        (COLLECTION, None, 1, None,
         _items(T, [0, 1, 3], [_p(0), _p(1), _p(3), _p(4)]) | _items(OTHER, [0, 1], [_p(0)]), 3),
        (COLLECTION, None, 10, OTHER, _items(OTHER, [0, 1], [_p(0)]), 0),
        (RUN, "bm25", 2, None, _items(T, [0, 1, 3], [_p(0), _p(1)]), 0),
        (RUN, "dense", 5, None,
         _items(T, [0, 1, 3], [_p(3), _p(0)]) | _items(OTHER, [0, 1], [_p(0)]), 0),
        (RUN, "dense", 5, OTHER, _items(OTHER, [0, 1], [_p(0)]), 0),
    ],
)  # fmt: skip
def test_each_scope_enumerates_its_missing_items(scope, run, k, topic, expected, skipped):
    data = make_small_collection()
    runs = {"bm25": data.bm25, "dense": data.dense}
    topics = {T: data.topic, OTHER: data.other_topic}
    spec = ScopeSpec(
        data.collection,
        scope,
        k,
        run_id=runs[run].pk if run else None,
        topic_id=topics[topic].pk if topic else None,
    )
    plan = plan_items(spec, _judge())
    assert _readable(plan.missing) == expected
    assert len(plan.missing) == len(expected)  # no item twice
    assert (plan.already_judged, plan.skipped_no_text) == (0, skipped)


def test_outputs_scope_enumerates_reports_times_real_subquestions():
    data = make_small_collection()
    plan = plan_items(ScopeSpec(data.collection, OUTPUTS), _judge())
    assert {(k.topic_id, k.target_id) for k in plan.missing} == {(data.topic.pk, data.output.pk)}
    assert _readable(plan.missing) == _items(T, [0, 1, 3], [data.output.pk])


def test_plan_skips_what_the_judge_rated_and_reads_in_a_handful_of_queries(
    django_assert_max_num_queries,
):
    data = make_small_collection()
    judge = _judge()
    rated = SubQuestion.objects.get(topic=data.topic, position=1)
    Judgment.objects.create(
        judge=judge, topic=data.topic, subquestion=rated, passage=data.passages[2],
        task=Judgment.Task.PASSAGE_RATING, rating=None, raw_output="unreadable",
    )  # fmt: skip
    with django_assert_max_num_queries(6):
        plan = plan_items(ScopeSpec(data.collection), judge)
    assert (T, 1, _p(2)) not in _readable(plan.missing)
    assert (len(plan.missing), plan.already_judged, plan.skipped_no_text) == (16, 1, 3)
    assert plan.n_items == 20


def _job(data, topic=None, **params) -> Job:
    run = params.pop("run", None)
    config = JudgeJobParams(run_id=run.pk if run else None, **params)
    return Job.objects.create(
        kind=KIND, params=config.as_params(run), collection=data.collection, topic=topic
    )


def test_job_stores_rating_raw_output_and_prompt_then_a_rerun_does_no_model_work():
    data = make_small_collection()
    judge_model = ScriptedJudge(lambda p: " 4" if "aspect 0" in p else "5 - complete")
    job = run_judge_job(_job(data, batch_size=5), judge_model.as_model())

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert (job.done, job.total, job.attempts) == (17, 17, 1)
    assert job.message == "judged 17, unparsable 0, already judged 0, skipped (no text) 3"
    assert [len(prompts) for prompts, _ in judge_model.calls] == [5, 5, 5, 2]
    judge = Judge.objects.get(model_id=ScriptedJudge.model_id)
    assert judge.kind == Judge.Kind.LLM and judge.prompt_version == DEFAULT_PROMPT_VERSION
    assert judge.name == f"{ScriptedJudge.model_id}@{DEFAULT_PROMPT_VERSION}"
    assert job.params["judge"] == judge.name
    stored = Judgment.objects.filter(judge=judge).select_related("subquestion", "passage")
    assert stored.count() == 17
    one = stored.get(subquestion__position=3, passage=data.passages[1])
    assert one.task == Judgment.Task.PASSAGE_RATING and one.topic == data.topic
    assert (one.rating, one.raw_output) == (5, "5 - complete")
    assert one.prompt == CRUX_RUBRIC_V1.render(one.subquestion.text, data.passages[1].text)
    assert {j.rating for j in stored if j.subquestion.position == 0} == {4}
    assert not stored.filter(passage=data.passages[5]).exists()  # no text: never judged
    before = list(Judgment.objects.order_by("pk").values_list("pk", "rating", "updated_at"))

    # A new job over the same scope (a finished job's own task changes nothing: issue #24).
    again = run_judge_job(_job(data, batch_size=5), no_model)
    assert again.state == Job.State.SUCCEEDED
    assert (again.done, again.total, again.attempts) == (0, 0, 1)
    assert again.message == "already judged 17, skipped (no text) 3"
    assert list(Judgment.objects.order_by("pk").values_list("pk", "rating", "updated_at")) == before


def test_unparsable_outputs_are_stored_with_no_rating_and_counted():
    data = make_small_collection()
    judge_model = ScriptedJudge(lambda p: "I cannot tell" if "aspect 1" in p else "2")
    job = run_judge_job(_job(data, scope=RUN, run=data.bm25, k=2), judge_model.as_model())

    assert job.state == Job.State.SUCCEEDED
    assert job.message == "judged 6, unparsable 2, already judged 0, skipped (no text) 0"
    unparsed = Judgment.objects.filter(judge__model_id=ScriptedJudge.model_id, rating=None)
    assert unparsed.count() == 2
    assert set(unparsed.values_list("raw_output", flat=True)) == {"I cannot tell"}
    assert set(unparsed.values_list("subquestion__position", flat=True)) == {1}


def test_a_failing_batch_is_retried_and_leaves_no_duplicates():
    data = make_small_collection()
    flaky = ScriptedJudge(fail_times=1)
    job = run_judge_job(_job(data, topic=data.topic, batch_size=4), flaky.as_model())

    assert job.state == Job.State.SUCCEEDED
    assert (job.done, job.total) == (15, 15)
    assert len(job.errors) == 1
    assert (job.errors[0]["batch"], job.errors[0]["try_number"]) == (0, 1)
    assert job.errors[0]["message"] == "RuntimeError: transient model fault"
    assert len(flaky.prompts) == 15 and len(set(flaky.prompts)) == 15
    assert Judgment.objects.filter(judge__model_id=ScriptedJudge.model_id).count() == 15


def test_outputs_are_judged_whole_and_stored_as_report_ratings():
    data = make_small_collection()
    data.output.text = "The 1998 floods followed weeks of heavy monsoon rain."
    data.output.save()
    judge_model = ScriptedJudge(lambda p: " 4")
    job = run_judge_job(_job(data, scope=OUTPUTS), judge_model.as_model())

    assert job.message == "judged 3, unparsable 0, already judged 0, skipped (no text) 0"
    stored = Judgment.objects.filter(judge__model_id=ScriptedJudge.model_id)
    assert set(stored.values_list("task", "output", "passage", "rating")) == {
        (Judgment.Task.REPORT_COVERAGE, data.output.pk, None, 4)
    }
    assert all(f"Context: {data.output.text}\n\nRating:" in p for p in judge_model.prompts)


def test_the_loaded_model_must_be_the_judge_the_ratings_are_filed_under():
    data = make_small_collection()
    impostor = ScriptedJudge()
    job = run_judge_job(
        _job(data, topic=data.other_topic),
        lambda model: JudgeModel(model_id="test/other-judge", load=lambda: impostor),
    )
    assert job.state == Job.State.FAILED
    assert "is not the job's judge 'test/other-judge'" in job.errors[0]["message"]
    assert not Judgment.objects.filter(judge__model_id="test/other-judge").exists()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"scope": "everything"}, "job parameter 'scope' must be one of"),
        ({"scope": "run"}, "job parameter 'run_id' is required for scope 'run'"),
        ({"k": 0}, "job parameter 'k' must be an integer in 1..1000, got 0"),
        ({"prompt_version": "v0"}, "unknown prompt version 'v0'"),
        ({"model": 7}, "job parameter 'model' must be a model id or null, got 7"),
        ({"scope": "run", "run_id": 999999}, "run id 999999 does not exist in collection"),
    ],
)
def test_bad_parameters_fail_the_job_naming_the_field(params, message):
    data = make_small_collection()
    job = Job.objects.create(kind=KIND, params=params, collection=data.collection)
    job = run_judge_job(job, no_model)
    assert job.state == Job.State.FAILED
    assert message in job.message
    assert not Judge.objects.filter(model_id=ScriptedJudge.model_id).exists()
