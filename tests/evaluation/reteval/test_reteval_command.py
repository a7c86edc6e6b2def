"""``manage.py reteval``: stored results by default, ``--compute`` first runs the job in-process
(on the scripted models here), and stderr names the command when nothing is stored."""

import csv
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from crux_app.models import Collection, Job, Run, RunEntry
from evaluation.reteval.models import RetEvalResult
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario, scripted_models

pytestmark = pytest.mark.django_db


@pytest.fixture
def scripted(monkeypatch):
    """The generator and judge ``--compute`` runs on instead of the configured models."""
    generator, judge, models = scripted_models()
    monkeypatch.setattr("evaluation.reteval.tasks.reteval_models", lambda: models)
    return generator, judge


@pytest.fixture
def no_models(monkeypatch) -> None:
    def refuse():
        raise AssertionError("the command computed without --compute")

    monkeypatch.setattr("evaluation.reteval.tasks.reteval_models", refuse)


def reteval(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("reteval", "--collection", "qa-reteval", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_without_compute_nothing_stored_prints_an_empty_table_and_names_the_command(no_models):
    make_reteval_collection()

    out, err = reteval("--format", "json")

    assert json.loads(out)["rows"] == []
    assert err.strip() == (
        "no stored LLM-retEval results for collection 'qa-reteval'; run "
        "`manage.py reteval --collection qa-reteval --compute`, or start an LLM-retEval job "
        "from the collection page"
    )
    assert not Job.objects.exists() and not RetEvalResult.objects.exists()
    out, err = reteval("--format", "csv")
    assert list(csv.reader(StringIO(out)))[0][:4] == ["run", "k", "questions", "recall"]
    assert len(out.splitlines()) == 1  # the header only
    out, err = reteval()
    assert "LLM-retEval@k" in out and "no stored LLM-retEval results" in err


def test_the_message_names_the_runs_and_cutoffs_asked_for(no_models):
    make_reteval_collection()

    out, err = reteval("--run", "bm25", "--k", "1", "5", "--format", "json")

    assert json.loads(out)["rows"] == []
    assert "for collection 'qa-reteval' (run 'bm25', k 1 5); run " in err
    assert "`manage.py reteval --collection qa-reteval --run bm25 --k 1 5 --compute`" in err


def test_stored_results_are_printed_without_a_message_or_a_job(no_models):
    data = make_reteval_collection()
    run_scenario(data)

    out, err = reteval("--run", "bm25", "--k", "1", "2", "--format", "json")

    assert [r["k"] for r in json.loads(out)["rows"]] == [1, 2] and err == ""
    assert Job.objects.count() == 1  # the scenario's
    # Stored at k 1 and 2 only: asked at k 10, nothing.
    out, err = reteval("--run", "bm25", "--k", "10", "--format", "json")
    assert json.loads(out)["rows"][0]["questions"] == 0
    assert "(run 'bm25', k 10); run `manage.py reteval" in err


def test_compute_runs_the_job_for_every_run_then_prints_the_table(scripted):
    data = make_reteval_collection()
    copy = Run.objects.create(collection=data.collection, name="bm25-copy")
    RunEntry.objects.bulk_create(
        RunEntry(run=copy, topic=e.topic, passage=e.passage, rank=e.rank, score=e.score)
        for e in data.run.entries.all()
    )

    out, err = reteval("--k", "1", "2", "--compute", "--format", "json")

    jobs = list(Job.objects.filter(kind="reteval").order_by("pk"))
    assert [j.params["run"] for j in jobs] == ["bm25", "bm25-copy"]
    assert all(j.state == Job.State.SUCCEEDED for j in jobs)
    for job in jobs:
        assert f"job #{job.pk} succeeded: {job.message}" in err
    assert "no stored" not in err
    rows = json.loads(out)["rows"]
    assert [(r["run"], r["k"]) for r in rows] == [
        ("bm25", 1), ("bm25", 2), ("bm25-copy", 1), ("bm25-copy", 2)
    ]  # fmt: skip
    assert [r["llm_reteval"] for r in rows if r["k"] == 2] == [pytest.approx(2 / 3)] * 2
    # Without --compute the same table is read back, and no model is asked for.
    generator, judge = scripted
    calls = (len(generator.calls), len(judge.calls))
    again, err = reteval("--k", "1", "2", "--format", "json")
    assert json.loads(again) == json.loads(out) and err == ""
    assert Job.objects.count() == 2 and (len(generator.calls), len(judge.calls)) == calls


def test_compute_needs_a_run_to_evaluate(no_models):
    Collection.objects.create(name="qa-reteval", kind=Collection.Kind.QA)
    with pytest.raises(CommandError, match="--compute: collection 'qa-reteval' has no runs"):
        reteval("--compute")
