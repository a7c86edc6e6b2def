"""The judging job with the real embedded judge model on CPU (a few items)."""

import pytest

from crux_app.models import Job, Judgment
from evaluation.backends.embedded import EMBEDDED_GENERATOR_ID
from evaluation.backends.model.ids import judge_model
from evaluation.crux.job import KIND, JudgeJobParams, JudgeModel, run_judge_job
from evaluation.crux.method.judge_prompts import CRUX_RUBRIC_V1, parse_rating
from tests.crux_app.factories import make_small_collection

pytestmark = [pytest.mark.models, pytest.mark.django_db]


def test_the_configured_judge_is_the_embedded_model_when_no_model_is_set(settings):
    settings.JUDGE_MODEL, settings.GENERATOR_MODEL = "", ""
    assert judge_model(None).model_id == EMBEDDED_GENERATOR_ID
    settings.JUDGE_MODEL = "org/judge-8b"
    assert judge_model(None).model_id == "org/judge-8b"
    assert judge_model("").model_id == EMBEDDED_GENERATOR_ID  # an explicit "" is the embedded


def test_embedded_judge_rates_items_and_stores_its_raw_output(embedded_generator):
    data = make_small_collection()
    job = Job.objects.create(
        kind=KIND,
        params=JudgeJobParams(batch_size=2).as_params(),
        collection=data.collection,
        topic=data.other_topic,  # one passage x two sub-questions
    )
    model = JudgeModel(embedded_generator.model_id, lambda: embedded_generator)
    job = run_judge_job(job, lambda name: model)

    assert job.state == Job.State.SUCCEEDED, job.errors
    stored = list(
        Judgment.objects.filter(judge__model_id=EMBEDDED_GENERATOR_ID).select_related(
            "subquestion", "passage"
        )
    )
    assert len(stored) == 2 and job.done == job.total == 2
    unparsable = sum(j.rating is None for j in stored)
    assert job.message == (
        f"judged 2, unparsable {unparsable}, already judged 0, skipped (no text) 0"
    )
    for judgment in stored:
        assert judgment.rating == parse_rating(judgment.raw_output)
        assert judgment.prompt == CRUX_RUBRIC_V1.render(
            judgment.subquestion.text, judgment.passage.text
        )
