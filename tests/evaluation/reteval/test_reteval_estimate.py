"""``manage.py reteval --dry-run`` prints what the jobs of ``--compute`` would cost and runs
none; questions with a result at every k for the judge are skipped."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import scripted_models

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def scripted(monkeypatch, settings):
    settings.TOKENIZER_MODEL, settings.GENERATOR_API_BASE = str(minilm_dir()), ""
    registry.clear()
    generator, judge, models = scripted_models()
    monkeypatch.setattr("evaluation.reteval.tasks.reteval_models", lambda: models)
    yield generator
    registry.clear()


def reteval(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("reteval", "--collection", "qa-reteval", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_dry_run_prints_the_cost_and_skips_questions_with_every_k_stored(scripted):
    make_reteval_collection()
    out, _ = reteval("--k", "1", "2", "--dry-run")
    assert "LLM-retEval job of run 'bm25' (dry run: nothing is started or stored):" in out
    assert "questions left: 3 (0 already stored)" in out
    assert "prompt tokens: unknown" not in out
    assert not Job.objects.exists() and not scripted.calls

    reteval("--k", "1", "2", "--compute")
    assert "questions left: 0 (3 already stored)" in reteval("--k", "1", "2", "--dry-run")[0]
    # A new k has no result yet: every question is left again.
    assert "questions left: 3 (0 already stored)" in reteval("--k", "3", "--dry-run")[0]
    assert Job.objects.count() == 1
