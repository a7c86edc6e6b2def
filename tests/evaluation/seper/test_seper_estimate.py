"""``manage.py seper_correlations --dry-run`` prints what the SePer jobs of ``--compute`` would
cost and runs none; after they ran, the stored contexts are skipped and their time measured."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection

pytestmark = pytest.mark.django_db


@pytest.fixture
def counting(monkeypatch, settings) -> CountingModels:
    """The models ``--compute`` runs on (and whose ids the estimate keys rows by)."""
    settings.TOKENIZER_MODEL, settings.GENERATOR_API_BASE = str(minilm_dir()), ""
    registry.clear()
    models = CountingModels()
    monkeypatch.setattr("evaluation.seper.tasks.seper_models", models.models)
    yield models
    registry.clear()


def seper(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("seper_correlations", "--collection", "qa-seper", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_dry_run_prints_the_cost_then_compute_leaves_nothing(counting):
    seper_collection()  # one question with gold answers (the other is skipped)
    out, _ = seper("--k", "2", "--dry-run")
    assert "SePer job of run 'bm25' (dry run: nothing is started or stored):" in out
    assert "questions left: 1 (0 already stored)" in out
    assert "prompt tokens: " in out and "prompt tokens: unknown" not in out
    assert "expected time: unknown" in out
    assert not Job.objects.exists() and counting.loads == 0

    _, err = seper("--k", "2", "--compute")
    assert "questions left: 1 (0 already stored)" in err  # said before the job ran
    out, _ = seper("--k", "2", "--dry-run")
    assert "questions left: 0 (1 already stored)" in out
    assert "prompt tokens: 0" in out
    assert "expected time: 0 s (at " in out and "measured on 1 past job" in out
    assert Job.objects.count() == 1
