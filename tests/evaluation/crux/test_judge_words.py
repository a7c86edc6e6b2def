"""The words pages use for judges and their numbers: the embedding baseline is listed as what it
is (no "LLM", no 9-character "prompt"), and a ranking metric says whose qrels it reads."""

import re

import pytest
from django.urls import reverse

from crux_app.models import Judge
from evaluation.crux.method.embedding_rating import PROMPT_VERSION
from tests.crux_app.factories import rate_passages
from tests.evaluation.crux.degenerate_collection import make_flat_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def flat():
    flat = make_flat_collection()
    embedding = Judge.objects.create(
        name=f"all-MiniLM-L6-v2@{PROMPT_VERSION}",
        kind=Judge.Kind.LLM,
        model_id="all-MiniLM-L6-v2",
        prompt_version=PROMPT_VERSION,
    )
    rate_passages(embedding, flat.topic, flat.passages, lambda pos, i: 2)
    flat.embedding = embedding
    return flat


def test_the_embedding_baseline_is_listed_as_one(researcher_client, flat):
    name = flat.embedding.name
    collection = researcher_client.get(reverse("collection-detail", args=[flat.collection.pk]))
    row = re.search(rf"<tr>\s*<td>{re.escape(name)}</td>(.*?)</tr>", collection.text, re.S)
    assert row, "the judge is listed"
    assert "embedding baseline" in row.group(1) and "LLM" not in row.group(1)
    assert f"@ {PROMPT_VERSION}" not in row.group(1)  # its rubric's version is no prompt
    board = researcher_client.get(reverse("leaderboard", args=[flat.collection.pk])).text
    assert f"{name} (embedding baseline, 30)" in board and f"{name} (llm, 30)" not in board
    matrix = researcher_client.get(
        reverse("crux-topic", args=[flat.collection.pk, flat.topic.pk])
    ).text
    assert f"{name} (embedding baseline, 30)" in matrix
    topic = researcher_client.get(reverse("topic-detail", args=[flat.collection.pk, flat.topic.pk]))
    assert f"{name} (embedding baseline, 30)" in topic.text
    # An LLM judge stays an LLM with its prompt.
    assert "flat-llm (LLM, 30)" in board


def test_the_leaderboard_says_whose_qrels_its_ranking_metrics_read(researcher_client, flat):
    html = researcher_client.get(
        reverse("leaderboard", args=[flat.collection.pk]), {"k": "10"}
    ).text
    basis = re.sub(r"<[^>]+>", "", re.search(r'id="qrels-basis">(.*?)</span>', html, re.S)[1])
    assert basis.startswith("nDCG@10, MAP, Recall@10 and R-Prec under imported's qrels")
    assert "Coverage, α-nDCG and Density under annotator's ratings" in basis


def test_the_agreement_page_lists_the_embedding_baseline_as_one(researcher_client, flat):
    html = researcher_client.get(reverse("agreement", args=[flat.collection.pk])).text
    name = re.escape(flat.embedding.name)
    row = re.search(rf"<tr><td>{name}</td>(.*?)</tr>", html, re.S)
    assert row, "the judge is listed"
    assert "<td>embedding baseline</td>" in row.group(1) and PROMPT_VERSION not in row.group(1)
