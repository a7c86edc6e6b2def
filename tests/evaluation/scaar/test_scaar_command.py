"""``manage.py scaar``: stored analyses by default, ``--compute`` first runs the job in-process
(answers with stored log-probs and a word-count embedder here, so no model is loaded), and
stderr names the command when nothing is stored."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import GeneratedOutput, Job
from evaluation.scaar.engine import ScaarModels
from evaluation.scaar.models import ScaarAnalysis
from tests.crux_app.job_collections import make_answer_collection
from tests.evaluation.dense.doubles import WordEmbedder

pytestmark = pytest.mark.django_db

GENERATOR = "test/answers-with-logprobs"


def refuse():
    raise AssertionError("no generator is needed: the answers carry their own log-probs")


@pytest.fixture
def word_models(monkeypatch) -> WordEmbedder:
    """What ``--compute`` runs on instead of the configured models."""
    embedder = WordEmbedder()
    models = ScaarModels(GENERATOR, embedder.model_id, refuse, lambda: embedder)
    monkeypatch.setattr("evaluation.scaar.tasks.scaar_models", lambda: models)
    return embedder


@pytest.fixture
def no_models(monkeypatch) -> None:
    def refuse_all():
        raise AssertionError("the command computed without --compute")

    monkeypatch.setattr("evaluation.scaar.tasks.scaar_models", refuse_all)


def answered_collection():
    """Two closed-book answers of system ``rag`` with their tokens and log-probs."""
    data = make_answer_collection(name="qa-scaar", n_topics=2)
    answers = [["Paris", " is", " the", " capital", "."], ["Jupiter", "."]]
    logprobs = [[-0.2, -1.5, -0.1, -2.0, -0.3], [-0.4, -0.1]]
    for topic, tokens, token_logprobs in zip(data.topics, answers, logprobs, strict=True):
        GeneratedOutput.objects.create(
            collection=data.collection, topic=topic, external_id=f"rag/{topic.external_id}",
            system="rag", kind=GeneratedOutput.Kind.ANSWER, text="".join(tokens),
            generator=GENERATOR, tokens=tokens, token_logprobs=token_logprobs,
        )  # fmt: skip
    return data


def scaar(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("scaar", "--collection", "qa-scaar", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_without_compute_nothing_stored_prints_empty_output_and_names_the_command(no_models):
    answered_collection()

    out, err = scaar()

    assert json.loads(out) == {"answers": [], "summaries": []}
    assert err.strip() == (
        "no stored SCAAR analyses for collection 'qa-scaar'; run "
        "`manage.py scaar --collection qa-scaar --compute`, or start a SCAAR job from the "
        "collection page"
    )
    assert not Job.objects.exists()
    out, err = scaar("--system", "rag", "--format", "csv")
    assert out.startswith("output,system,topic,") and len(out.splitlines()) == 1
    assert (
        "(system 'rag'); run `manage.py scaar --collection qa-scaar --system rag --compute`" in err
    )


def test_without_outputs_the_message_says_to_generate_answers_first(no_models):
    answered_collection()

    out, err = scaar("--system", "other")

    assert json.loads(out)["answers"] == []
    assert err.strip() == (
        "no stored SCAAR analyses for collection 'qa-scaar' (system 'other'): it has no "
        "generated outputs to analyse; generate answers first (a Generate answers job from the "
        "collection page)"
    )


def test_compute_analyses_the_missing_outputs_then_prints_them(word_models):
    answered_collection()

    out, err = scaar("--compute", "--no-refine")

    job = Job.objects.get(kind="scaar")
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert f"SCAAR job: job #{job.pk} succeeded: {job.message}" in err and "no stored" not in err
    printed = json.loads(out)
    assert [a["output"] for a in printed["answers"]] == ["rag/q0", "rag/q1"]
    assert ScaarAnalysis.objects.count() == 2 and word_models.calls
    # Without --compute the same analyses are read back; no job, no model.
    calls = len(word_models.calls)
    again, err = scaar()
    assert json.loads(again) == printed and err == ""
    assert Job.objects.count() == 1 and len(word_models.calls) == calls
    # --compute again: a job that finds everything stored.
    scaar("--compute", "--no-refine")
    assert Job.objects.latest("pk").message.startswith("analysed 0, already stored 2")
