"""start_job / retry_job: rows, sending on commit, eager execution of the registered task."""

import pytest

from crux_app.jobs.catalog import CATALOG, UnknownJobKind, get_kind, kind_label
from crux_app.jobs.service import JobNotRetryable, retry_job, start_job
from crux_app.models import GeneratedOutput, Job
from evaluation.answers.job import AnswerJobParams, run_answer_job
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.backends.fake_generator import RecordingGenerator


def test_catalog_routes_model_kinds_to_the_gpu_queue():
    from crux_app.celery import app

    kind = get_kind("generate_answers")
    assert kind.task_name == "jobs.generate_answers"
    route = app.amqp.router.route({}, kind.task_name, args=(1,), kwargs={})
    assert route["queue"].name == "gpu"
    assert kind_label("generate_answers") == "Generate answers"
    assert kind_label("retired_kind") == "retired_kind"


def test_every_catalog_task_is_registered_with_the_worker_app():
    from crux_app.celery import app

    app.loader.import_default_modules()  # what `celery worker` does at start
    assert {k.task_name for k in CATALOG.values()} <= set(app.tasks)


@pytest.mark.django_db
def test_unknown_kind_is_refused_before_a_row_exists():
    with pytest.raises(
        UnknownJobKind,
        match="unknown job kind 'nope'; known kinds: collection_archive, dense, export, ",
    ):
        start_job("nope")
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_start_job_creates_a_pending_row_and_sends_on_commit(
    researcher, django_capture_on_commit_callbacks
):
    data = make_answer_collection(n_topics=1)
    with django_capture_on_commit_callbacks() as callbacks:
        job = start_job("generate_answers", {"k": 3}, topic=data.topics[0], user=researcher)
    job.refresh_from_db()
    assert job.state == Job.State.PENDING
    assert job.collection == data.collection  # taken from the topic
    assert (job.params, job.created_by) == ({"k": 3}, researcher)
    assert len(job.celery_task_id) == 36
    assert len(callbacks) == 1  # nothing is sent until the transaction commits


@pytest.mark.django_db
def test_topic_of_another_collection_is_refused():
    a = make_answer_collection("qa-a", n_topics=1)
    b = make_answer_collection("qa-b", n_topics=1)
    with pytest.raises(ValueError, match="topic 'q0' is not in collection 'qa-a'"):
        start_job("generate_answers", collection=a.collection, topic=b.topics[0])


@pytest.mark.django_db
def test_unfinished_jobs_cannot_be_retried():
    job = Job.objects.create(kind="generate_answers", state=Job.State.RUNNING)
    with pytest.raises(JobNotRetryable, match=f"job #{job.pk} is running"):
        retry_job(job)


@pytest.mark.django_db
def test_eager_start_and_retry_run_the_registered_task(
    settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    data = make_answer_collection(n_topics=2)
    params = AnswerJobParams(run_id=data.run.pk, k=1).as_params(data.run)
    # Answers already stored: the real task finishes without loading any model.
    run_answer_job(
        Job.objects.create(kind="generate_answers", params=params, collection=data.collection),
        RecordingGenerator,
    )

    with django_capture_on_commit_callbacks(execute=True):
        job = start_job("generate_answers", params, collection=data.collection)
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED
    assert job.message == "generated 0, already stored 2"
    first_task_id = job.celery_task_id

    Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED)
    with django_capture_on_commit_callbacks(execute=True):
        retry_job(job)
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED
    assert job.attempts == 2
    assert job.celery_task_id != first_task_id
    assert GeneratedOutput.objects.count() == 2
