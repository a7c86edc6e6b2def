"""``manage.py scaar --dry-run`` prints what ``--compute`` would cost and analyses nothing;
outputs analysed with the same models and settings are skipped."""

from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from tests.evaluation.scaar.test_scaar_command import answered_collection, word_models  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local_tokenizer(settings):
    settings.TOKENIZER_MODEL, settings.GENERATOR_API_BASE = str(minilm_dir()), ""
    registry.clear()
    yield
    registry.clear()


def scaar(*args: str) -> str:
    out = StringIO()
    call_command("scaar", "--collection", "qa-scaar", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_dry_run_prints_the_cost_and_skips_analysed_outputs(word_models):  # noqa: F811
    answered_collection()
    text = scaar("--no-refine", "--dry-run")
    assert "SCAAR job (dry run: nothing is started or stored):" in text
    assert "answers left: 2 (0 already stored)" in text
    assert "prompt tokens: unknown" not in text
    assert not Job.objects.exists() and not word_models.calls
    scaar("--compute", "--no-refine")
    assert "answers left: 0 (2 already stored)" in scaar("--no-refine", "--dry-run")
    # Other settings are other analyses: both answers are left again.
    assert "answers left: 2 (0 already stored)" in scaar("--no-refine", "--k", "2", "--dry-run")
