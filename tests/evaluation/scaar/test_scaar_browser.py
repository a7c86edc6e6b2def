"""A researcher opens an answer's SCAAR heatmap page in a real browser."""

import math

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from crux_app.models import GeneratedOutput
from evaluation.scaar.method.contributions import ScaarSettings, analyse_answer, segment_answer
from evaluation.scaar.models import ScaarAnalysis
from tests.crux_app.job_collections import make_answer_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def stored_analysis() -> ScaarAnalysis:
    data = make_answer_collection(n_topics=1, passages_per_topic=2)
    topic = data.topics[0]
    tokens = ["The", " cap", "ital", " is", " Paris", ".", " It", " is", " old", "."]
    probs = [0.95, 0.5, 1.0, 0.99, 0.6, 0.99, 0.9, 0.99, 0.3, 0.99]
    output = GeneratedOutput.objects.create(
        collection=data.collection, topic=topic, external_id="sys/q0", system="sys",
        kind=GeneratedOutput.Kind.ANSWER, text="".join(tokens),
    )  # fmt: skip
    sentences = segment_answer(tokens, [math.log(p) for p in probs])
    analysis = analyse_answer(
        topic.request, sentences, [[0.99, 0.9, 0.99, 0.7], [0.99, 0.99, 0.95]], ScaarSettings()
    )
    detail = analysis.to_dict()
    passage = data.passages[topic.external_id][0]
    for s in detail["sentences"]:
        s["retrieved"] = [{"passage": passage.pk, "score": 3.2}] if s["triggered"] else []
        s["flare_retrieved"] = []
    return ScaarAnalysis.objects.create(
        key="k" * 64, output=output, collection=data.collection, topic=topic,
        generator="gen", embedder="emb", params={"k": 3}, logprob_source="stored",
        n_sentences=2, n_retrievals=analysis.n_retrievals,
        flare_retrievals=analysis.flare_retrievals, detail=detail,
    )  # fmt: skip


def test_answer_page_shows_the_heatmap_triggers_queries_and_plots(
    researcher, login, page_errors, screenshot, live_server
):
    analysis = stored_analysis()
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("scaar-answer", args=[analysis.collection_id, analysis.pk]))

    expect(page.locator("h1")).to_have_text("SCAAR · sys/q0")
    first = page.locator("#scaar-sentence-0")
    expect(first.locator(".scaar-word")).to_have_text(["The", "capital", "is", "Paris."])
    # "Paris." (p 0.6) carries most of the meaning (r 0.3): below 0.8 * e^0.3 = 1.08.
    expect(first.locator(".scaar-word.below")).to_contain_text(["capital", "Paris."])
    expect(first).to_have_attribute("data-triggered", "yes")
    expect(first.locator(".scaar-query")).to_contain_text("What is the capital of France?")
    expect(first.locator(".scaar-retrieved li")).to_have_count(1)
    expect(page.locator("#scaar-sentence-1 .scaar-word")).to_have_count(3)
    expect(page.locator("#scaar-plot-0 .main-svg").first).to_be_visible()
    expect(page.locator("#scaar-plot-1 .main-svg").first).to_be_visible()

    shot = screenshot("scaar_answer")
    assert shot.stat().st_size > 10_000
    assert page_errors == []
