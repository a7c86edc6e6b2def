"""``manage.py nuggets --compute`` runs the nugget judging job in this process (on a scripted
judge here) and prints the new judge's scores; ``--dry-run`` prints what it would cost (answers
left after skipping those the judge has assigned every nugget of, prompt tokens) and starts
nothing."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from crux_app.models import Collection, Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from evaluation.backends.model.ids import judge_model
from evaluation.nuggets.job import NuggetModels
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all
from tests.evaluation.nuggets.test_nugget_job import ScriptedJudge, states_fact

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def scripted(monkeypatch, settings):
    """The configured judge's tokenizer is MiniLM's (counted, never loaded as a judge); the
    job's judge is scripted under the configured judge's id, as the workers' would be."""
    settings.JUDGE_MODEL, settings.JUDGE_API_BASE, settings.GENERATOR_API_BASE = (
        str(minilm_dir()),
        "",
        "",
    )
    registry.clear()
    judge = ScriptedJudge(states_fact)
    judge.model_id = judge_model(None).model_id
    models = NuggetModels(judge.model_id, lambda: judge)
    monkeypatch.setattr("evaluation.nuggets.tasks.nugget_models", lambda: models)
    yield judge
    registry.clear()


def nuggets(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("nuggets", "--collection", NAME, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_dry_run_prints_the_cost_and_starts_nothing(tmp_path, scripted):
    load_all(tmp_path)
    out, _ = nuggets("--task", "assign", "--dry-run")
    assert "nugget judging job (assign) (dry run: nothing is started or stored):" in out
    assert "items left: 3 (0 already stored)" in out
    assert "prompt tokens: unknown" not in out and "counted on a sample" in out
    assert "output tokens: 12 (at most)" in out  # 4 digit tokens x 3 answers
    assert not Job.objects.exists() and not scripted.prompts


def test_compute_runs_the_job_then_prints_the_new_judges_scores(tmp_path, scripted):
    load_all(tmp_path)
    out, err = nuggets("--task", "assign", "--compute", "--format", "json")
    assert "nugget judging job (assign) (estimate):" in err
    job = Job.objects.get()
    assert job.state == Job.State.SUCCEEDED and job.params["task"] == "assign"
    assert len(scripted.prompts) == 7  # every (answer, nugget) pair once
    runs = {r["run"]: r for r in json.loads(out)["runs"]}
    assert set(runs) == {"runA", "runB"}
    # runA states both tides facts; runB ("Tides come from wind.") states none.
    assert runs["runB"]["strict_vital"] == 0.0

    again, _ = nuggets("--task", "assign", "--dry-run")
    assert "items left: 0 (3 already stored)" in again
    # Two grades are another prompt version: nothing of it is stored.
    assert "items left: 3 (0 already stored)" in nuggets("--grades", "2", "--dry-run")[0]
    assert Job.objects.count() == 1 and len(scripted.prompts) == 7


def test_out_of_bounds_parameters_are_refused(tmp_path):
    load_all(tmp_path)
    with pytest.raises(CommandError, match="grades"):
        nuggets("--grades", "4", "--dry-run")
    assert not Job.objects.exists()


def test_the_start_page_shows_the_same_estimate(researcher_client, tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    response = researcher_client.get(reverse("nuggets-start", args=[collection.pk]))
    assert response.status_code == 200
    assert response.context["estimate"].items_left == 3
    assert "3 items left (0 already stored, skipped)" in response.content.decode()
    assert not Job.objects.exists()
