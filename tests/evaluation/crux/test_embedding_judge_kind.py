"""The embedding baseline is named as such wherever a page lists a judge's kind, with no prompt
line (its "prompt version" is its rubric's version, no prompt): the matrix cell panel, the
agreement page's selector, a review campaign's verdict (issue #34: "LLM", "Prompt (9
characters)"); and the verdict warns beside a nearly constant judge's numbers."""

import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from annotation.review.campaigns import create_review_campaign
from annotation.review.selection import QueueChoice
from crux_app.models import Judge, Judgment
from evaluation.agreement.review_verdict import review_verdict
from evaluation.crux.method.embedding_rating import PROMPT_VERSION
from tests.annotation.review_data import disagreement_collection
from tests.crux_app.factories import make_passages, make_topic, rate_passages
from tests.evaluation.crux.degenerate_collection import FLAT, SPREAD, make_flat_collection

pytestmark = pytest.mark.django_db


def make_embedding(judge: Judge) -> None:
    """Turn ``judge`` into the embedding baseline, as the embedding job stores it."""
    Judge.objects.filter(pk=judge.pk).update(
        model_id="all-MiniLM-L6-v2", prompt_version=PROMPT_VERSION
    )
    Judgment.objects.filter(judge=judge).update(prompt=PROMPT_VERSION, raw_output="cosine=0.5")


def test_the_cell_panel_names_the_embedding_baseline_and_shows_no_prompt(researcher_client):
    flat = make_flat_collection()
    make_embedding(flat.judges[SPREAD])
    Judgment.objects.filter(judge=flat.judges[FLAT]).update(prompt="Rate the context 0-5.")
    sq = flat.topic.subquestions.get(position=0)
    url = reverse("crux-topic-cell", args=[flat.collection.pk, flat.topic.pk])
    html = researcher_client.get(
        f"{url}?{urlencode({'sq': sq.pk, 'passage': flat.passages[0].pk})}"
    )
    rows = dict(
        re.findall(
            r'<tr[^>]*data-judge="([^"]+)"[^>]*>(.*?)</tr>\s*(?=<tr|</tbody>)',
            html.content.decode(),
            re.S,
        )
    )
    assert '<span class="badge">embedding baseline</span>' in rows[SPREAD]
    assert "Prompt (" not in rows[SPREAD] and "No prompt stored" not in rows[SPREAD]
    assert '<span class="badge">LLM</span>' in rows[FLAT]
    assert "Prompt (21 characters)" in rows[FLAT]


def test_the_agreement_selector_names_the_embedding_baseline(researcher_client):
    flat = make_flat_collection()
    make_embedding(flat.judges[SPREAD])
    html = researcher_client.get(reverse("agreement", args=[flat.collection.pk])).content.decode()
    assert f">{SPREAD} (embedding baseline)</option>" in html
    assert f">{FLAT} (LLM)</option>" in html


def test_the_verdict_names_the_embedding_baseline(researcher_client):
    data = disagreement_collection()
    Judge.objects.filter(name="gpt").update(prompt_version=PROMPT_VERSION)
    campaign = create_review_campaign(data.collection, "All", QueueChoice(kind="annotator_machine"))
    kinds = {j.name: j.kind for j in review_verdict(campaign).judges}
    assert kinds["gpt"] == "embedding baseline" and kinds["user:ann"] == "human"


def test_the_verdict_warns_about_a_nearly_constant_judge(researcher_client):
    data = disagreement_collection()
    campaign = create_review_campaign(data.collection, "All", QueueChoice(kind="annotator_machine"))
    url = reverse("review-verdict", args=[campaign.pk])
    assert 'class="judge-warning"' not in researcher_client.get(url).content.decode()
    # gpt goes on to give 4 to 40 more passages of the collection: 41 of its 44 ratings.
    other = make_topic(data.collection, "t2", n_subquestions=1)
    rate_passages(data.judges["gpt"], other, make_passages(data.collection, "t2", 40), lambda *_: 4)
    html = researcher_client.get(url).content.decode()
    assert 'data-kind="constant_ratings" data-judge="gpt"' in html
    assert html.index("judge-warnings") < html.index('id="verdict-table"')
