"""``manage.py dense``: stored results by default, ``--compute`` first runs the job in-process
(on the rule-based models here), and stderr names the command when nothing is stored."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import Job
from evaluation.dense.models import DenseResult
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = pytest.mark.django_db

NOTHING_AT_K3 = (
    "no stored DENSE results for collection 'dense-qa' (run 'bm25', k 3); run "
    "`manage.py dense --collection dense-qa --run bm25 --k 3 --compute`, or start a DENSE job "
    "from the collection page"
)


@pytest.fixture
def rule_models(monkeypatch) -> RuleModels:
    """What ``--compute`` runs on instead of the configured models."""
    models = RuleModels()
    monkeypatch.setattr("evaluation.dense.tasks.dense_models", models.models)
    return models


@pytest.fixture
def no_models(monkeypatch) -> None:
    def refuse():
        raise AssertionError("the command computed without --compute")

    monkeypatch.setattr("evaluation.dense.tasks.dense_models", refuse)


def dense(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("dense", "--collection", "dense-qa", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_without_compute_nothing_stored_prints_an_empty_list_and_names_the_command(no_models):
    make_dense_data()

    out, err = dense("--run", "bm25", "--k", "3")

    assert json.loads(out) == []
    assert err.strip() == NOTHING_AT_K3
    assert not Job.objects.exists() and not DenseResult.objects.exists()
    out, err = dense("--k", "3", "--format", "jsonl")  # the only run is the default
    assert out == "" and err.strip() == NOTHING_AT_K3


def test_the_message_names_the_topic_and_the_summary_has_no_k(no_models):
    make_dense_data()

    out, err = dense("--k", "3", "--topic", "q2")
    assert json.loads(out) == []
    assert "(run 'bm25', k 3, topic 'q2')" in err
    assert "`manage.py dense --collection dense-qa --run bm25 --k 3 --topic q2 --compute`" in err

    out, err = dense("--summary")
    assert json.loads(out) == []
    assert "for collection 'dense-qa' (run 'bm25'); run `manage.py dense --collection " in err
    assert "--run bm25 --compute`" in err


def test_compute_runs_the_job_in_process_then_prints_the_stored_rows(rule_models):
    make_dense_data()

    out, err = dense("--k", "3", "--compute")

    job = Job.objects.get(kind="dense")
    assert job.state == Job.State.SUCCEEDED
    assert job.params["k"] == 3
    assert f"DENSE job: job #{job.pk} succeeded: {job.message}" in err
    assert "no stored" not in err
    records = json.loads(out)
    assert [r["topic"] for r in records] == ["q1", "q2"]
    assert rule_models.loads > 0
    # Without --compute the same rows are read back; no job, no model.
    loads = rule_models.loads
    again, err = dense("--k", "3")
    assert json.loads(again) == records and err == ""
    assert Job.objects.count() == 1 and rule_models.loads == loads


def test_stored_rows_are_printed_without_compute_and_stored_is_a_no_op(no_models):
    data = make_dense_data()
    run_job(data, RuleModels().models())

    out, err = dense("--k", "3")
    assert [r["topic"] for r in json.loads(out)] == ["q1", "q2"] and err == ""
    assert dense("--k", "3", "--stored") == (out, err)
    assert Job.objects.count() == 1  # the fixture's job only
    # Stored at k 3, asked at k 5: nothing for what was asked.
    out, err = dense("--k", "5")
    assert json.loads(out) == [] and "(run 'bm25', k 5)" in err
    with pytest.raises(CommandError, match="--compute: not allowed with argument --stored"):
        dense("--stored", "--compute")
