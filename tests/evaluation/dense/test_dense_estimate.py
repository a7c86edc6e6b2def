"""What a DENSE job will cost before it runs: ``manage.py dense --dry-run`` and the DENSE start
page show the questions left and their prompt tokens, counted with a real tokenizer."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from transformers import AutoTokenizer

from crux_app.models import Job
from evaluation.backends import registry
from evaluation.backends.embedded import minilm_dir
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
