"""What a DENSE job will cost before it runs: ``manage.py dense --dry-run`` and the DENSE start
page show the questions left and their prompt tokens, counted with a real tokenizer."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from transformers import AutoTokenizer

from crux_app.jobs.estimate import job_estimate
from crux_app.jobs.start_view import _initial_data
from crux_app.models import Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
from evaluation.dense.forms import DenseJobForm
from evaluation.dense.job import KIND
from tests.evaluation.dense.job_data import make_dense_data

pytestmark = pytest.mark.django_db

TOKENIZER = str(minilm_dir())  # a real tokenizer that loads in a second


@pytest.fixture(autouse=True)
def local_tokenizer(settings):
    settings.TOKENIZER_MODEL, settings.GENERATOR_API_BASE = TOKENIZER, ""
    registry.clear()
    yield
    registry.clear()


def _context_tokens(*texts: str) -> int:
    tokenizer = AutoTokenizer.from_pretrained(TOKENIZER, local_files_only=True)
    return len(tokenizer("\n".join(texts), add_special_tokens=False)["input_ids"])


def test_dry_run_prints_the_cost_and_computes_nothing():
    data = make_dense_data()
    out, err = StringIO(), StringIO()
    call_command(
        "dense", "--collection", "dense-qa", "--k", "3", "--dry-run", stdout=out, stderr=err
    )
    text = out.getvalue()
    assert Job.objects.count() == 0
    assert "questions left: 2 (0 already stored)" in text
    # Each question's request and top-3 texts, read by k + 2 = 5 prompts.
    capital = _context_tokens(data.capital.request, *[p.text for p in data.passages[:3]])
    cheese = _context_tokens(data.cheese.request, data.passages[1].text)
    assert f"prompt tokens: {(capital + cheese) * 5} (tokenizer {TOKENIZER}," in text
    # At most (k + 1) answers of 24 tokens and k rephrasings of 96 per question.
    assert f"output tokens: {2 * (4 * 24 + 3 * 96)} (at most)" in text
    assert "expected time: unknown" in text
    one = StringIO()
    call_command(
        "dense", "--collection", "dense-qa", "--topic", "q2", "--dry-run", stdout=one,
        stderr=StringIO(),
    )  # fmt: skip
    assert "questions left: 1 (0 already stored)" in one.getvalue()


def test_the_start_page_shows_the_estimate_of_its_options(researcher_client):
    data = make_dense_data()
    url = reverse("dense-start", args=[data.collection.pk])
    html = researcher_client.get(url, {"run": data.run.pk, "k": 3}).content.decode()
    assert 'id="job-estimate" data-items-left="2"' in html
    assert "expected time unknown" in html
    # Without options: those the page shows (the only run, k 5).
    plain = researcher_client.get(url).content.decode()
    assert 'id="job-estimate" data-items-left="2"' in plain
    # Options a job would refuse show no estimate, and never a 500.
    bad = researcher_client.get(url, {"run": "nope", "k": "-4"})
    assert bad.status_code == 200 and "job-estimate" not in bad.content.decode()


def _estimate_fragment(client, data, url: str, values: dict):
    """What the page's form posts for its estimate: the values it shows, changed by ``values``."""
    shown = _initial_data(DenseJobForm(collection=data.collection))
    return client.get(f"{url}estimate/", shown | values, HTTP_HX_REQUEST="true")


def test_the_estimate_follows_k_as_the_server_computes_it(researcher_client):
    """The page asks for the estimate of the form's values as they change: k = 1 and k = 3
    give the server's figures for those values, not the defaults' figure."""
    data = make_dense_data()
    url = reverse("dense-start", args=[data.collection.pk])
    page = researcher_client.get(url).content.decode()
    # The page asks again as the form changes, with the form's values.
    assert f'hx-get="{url}estimate/"' in page and 'hx-include="closest form"' in page
    tokens = {}
    for k in (1, 3):
        response = _estimate_fragment(researcher_client, data, url, {"run": data.run.pk, "k": k})
        html = response.content.decode()
        assert response.status_code == 200, html
        assert "<html" not in html
        server = job_estimate(KIND, {"run_id": data.run.pk, "k": k}, data.collection)
        assert f'data-prompt-tokens="{server.prompt_tokens}"' in html
        tokens[k] = server.prompt_tokens
    # (k + 2) prompts of the question and its top-k: more context, more tokens.
    capital_1 = _context_tokens(data.capital.request, data.passages[0].text)
    cheese_1 = _context_tokens(data.cheese.request, data.passages[1].text)
    assert tokens[1] == (capital_1 + cheese_1) * 3
    assert tokens[3] > tokens[1]


def test_refused_values_get_no_estimate_but_their_reason(researcher_client):
    data = make_dense_data()
    url = reverse("dense-start", args=[data.collection.pk])
    response = _estimate_fragment(researcher_client, data, url, {"run": data.run.pk, "k": "-4"})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="estimate-refused"' in html and "k:" in html and "job-estimate" not in html


def test_the_estimate_is_for_who_may_start_the_job(client, django_user_model):
    data = make_dense_data()
    url = reverse("dense-start", args=[data.collection.pk])
    client.force_login(django_user_model.objects.create_user("outsider"))
    response = client.get(f"{url}estimate/", {"run": data.run.pk, "k": 1})
    assert response.status_code in (403, 404)


def test_the_estimate_door_never_starts_a_job(researcher_client):
    """The estimate's URL answers GET only: a POST of valid values there starts nothing."""
    data = make_dense_data()
    url = reverse("dense-start", args=[data.collection.pk])
    before = Job.objects.count()
    response = researcher_client.post(f"{url}estimate/", {"run": data.run.pk, "k": 1})
    assert response.status_code == 405 and Job.objects.count() == before
