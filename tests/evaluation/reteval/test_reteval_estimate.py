"""``manage.py reteval --dry-run`` prints what the jobs of ``--compute`` would cost and runs
none; questions with a result at every k for the judge are skipped."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from crux_app.jobs.estimate import job_estimate
from crux_app.jobs.start_view import _initial_data
from crux_app.models import Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from evaluation.reteval.forms import RetEvalJobForm
from evaluation.reteval.job import KIND
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


def test_the_start_page_estimates_once_a_run_is_chosen(researcher_client, scripted):
    """The form opens with no run chosen (no estimate yet); choosing one asks the server for the
    estimate of the form's values, the figures of ``job_estimate`` for them."""
    data = make_reteval_collection()
    start = reverse("reteval-start", args=[data.collection.pk])
    page = researcher_client.get(start).content.decode()
    assert 'id="estimate-area"' in page and 'id="job-estimate"' not in page
    shown = _initial_data(RetEvalJobForm(collection=data.collection))
    assert "run" not in shown  # "---------" until the researcher picks one
    response = researcher_client.get(
        f"{start}estimate/", shown | {"run": data.run.pk}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200, html
    server = job_estimate(KIND, {"run_id": data.run.pk, "ks": [1, 5, 10]}, data.collection)
    assert server.items_left == 3 and server.prompt_tokens
    assert f'data-items-left="{server.items_left}"' in html
    assert f'data-prompt-tokens="{server.prompt_tokens}"' in html
    # Another k list: another estimate (no tokens of k = 5 and 10 contexts).
    fewer = researcher_client.get(
        f"{start}estimate/", shown | {"run": data.run.pk, "ks": "1"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    one_k = job_estimate(KIND, {"run_id": data.run.pk, "ks": [1]}, data.collection)
    assert one_k.prompt_tokens < server.prompt_tokens
    assert f'data-prompt-tokens="{one_k.prompt_tokens}"' in fewer
    # No run: the reason, with status 400.
    refused = researcher_client.get(f"{start}estimate/", shown, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400 and "run: This field is required." in refused.text
