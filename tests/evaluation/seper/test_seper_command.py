"""``manage.py seper_correlations``: stored SePer rows by default, ``--compute`` first runs the
SePer job in-process (on the scripted generator and word-overlap NLI here), and stderr names
the command when nothing is stored."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import Job
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def counting(monkeypatch) -> CountingModels:
    """What ``--compute`` runs on instead of the configured models."""
    models = CountingModels()
    monkeypatch.setattr("evaluation.seper.tasks.seper_models", models.models)
    return models


@pytest.fixture
def no_models(monkeypatch) -> None:
    def refuse():
        raise AssertionError("the command computed without --compute")

    monkeypatch.setattr("evaluation.seper.tasks.seper_models", refuse)


def seper(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("seper_correlations", "--collection", "qa-seper", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_without_compute_nothing_stored_prints_empty_figures_and_names_the_command(no_models):
    seper_collection()

    out, err = seper("--k", "2")

    printed = json.loads(out)
    assert printed["setting"] is None and printed["correlations"] == []
    assert printed["notes"] == ["no SePer scores in this collection yet"]
    assert printed["runs"] == [{"run": "bm25", "delta_seper_s": None}]
    assert err.strip() == (
        "no stored SePer scores for collection 'qa-seper'; run "
        "`manage.py seper_correlations --collection qa-seper --k 2 --compute`, or start a SePer "
        "job from the collection page"
    )
    assert not Job.objects.exists()
    out, err = seper("--format", "text")
    assert "run bm25: mean ΔSePer_S of top-5 = —" in out
    assert "--collection qa-seper --k 5 --compute`" in err


def test_scores_at_another_k_name_the_k_that_is_missing(no_models):
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())  # the run's top-2

    out, err = seper("--k", "2")
    assert json.loads(out)["runs"][0]["delta_seper_s"] is not None and err == ""

    out, err = seper("--k", "1")
    assert json.loads(out)["runs"] == [{"run": "bm25", "delta_seper_s": None}]
    assert err.strip() == (
        "no stored Delta-SePer of the runs' top-1 contexts in collection 'qa-seper'; run "
        "`manage.py seper_correlations --collection qa-seper --k 1 --compute`, or start a SePer "
        "job from the collection page"
    )


def test_compute_runs_the_job_for_each_run_at_k_then_prints_the_figures(counting):
    data = seper_collection()

    out, err = seper("--k", "2", "--compute")

    job = Job.objects.get(kind="seper")
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert (job.params["run_id"], job.params["k"]) == (data.run.pk, 2)
    assert f"job #{job.pk} succeeded: {job.message}" in err and "no stored" not in err
    row = SeperScore.objects.get(context_kind="run")
    assert (row.run_id, row.k, row.generator) == (data.run.pk, 2, "test/scripted")
    printed = json.loads(out)
    assert printed["setting"]["generator"] == "test/scripted"
    assert printed["runs"] == [{"run": "bm25", "delta_seper_s": pytest.approx(row.delta_s)}]
    # Without --compute the same figures are read back; no job, no model.
    loads = counting.loads
    again, err = seper("--k", "2")
    assert json.loads(again) == printed and err == ""
    assert Job.objects.count() == 1 and counting.loads == loads


def test_a_failed_job_stops_the_command(monkeypatch):
    seper_collection()
    models = CountingModels().models()
    broken = type(models)(models.generator_id, models.nli_id, _fail, models.load_nli)
    monkeypatch.setattr("evaluation.seper.tasks.seper_models", lambda: broken)

    with pytest.raises(CommandError, match=r"job #\d+ failed: .*error: .*no generator here"):
        seper("--k", "2", "--compute")


def _fail():
    raise RuntimeError("no generator here")
