"""The CRUX judging Celery tasks: the LLM judge on the ``gpu`` queue, the embedding baseline
judge on the ``cpu`` queue (the queues their job kinds declare in CruxConfig)."""

from celery import shared_task

from crux_app.jobs.catalog import job_task_name
from crux_app.jobs.runner import job_to_run
from evaluation.backends.model.ids import embedder_model, judge_model
from evaluation.crux.job import EMBEDDING_KIND, KIND, JudgeModel, run_judge_job


def judge_model_for(model: str | None) -> JudgeModel:
    handle = judge_model(model)
    return JudgeModel(
        model_id=handle.model_id, load=handle.load, require_logprobs=handle.require_logprobs
    )


@shared_task(name=job_task_name(KIND), ignore_result=True)
def judge_answerability(job_id: int) -> None:
    """Rate the missing items of a ``judge_answerability`` job with its LLM judge."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_judge_job(job, judge_model_for)


def embedder_model_for(model: str | None) -> JudgeModel:
    """The embedding judge's embedder: the workers' EMBED_MODEL (a job names no other)."""
    handle = embedder_model()
    return JudgeModel(model_id=handle.model_id, load=handle.load)


@shared_task(name=job_task_name(EMBEDDING_KIND), ignore_result=True)
def judge_embedding(job_id: int) -> None:
    """Rate the missing items of a ``judge_embedding`` job (queue ``cpu``)."""
    job = job_to_run(job_id)
    if job is None:
        return  # deleted or cancelled before a worker got to it: nothing to do
    run_judge_job(job, embedder_model_for)
