"""Who was right: the pure statistics on hand-computed cases, then a review campaign's page and
command."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy.stats import binomtest

from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import chosen_label, decide
from annotation.review.selection import QueueChoice
from evaluation.agreement.method.verdict import weighted_confusion, weighted_share, wilson_interval
from evaluation.agreement.review_verdict import review_verdict
from tests.annotation.review_data import disagreement_collection


def test_wilson_interval_by_hand():
    # p = 1/2 over 4: centre 1/2, half-width z*sqrt(1/16 + z^2/64) / (1 + z^2/4) = 0.349961.
    low, high = wilson_interval(0.5, 4)
    assert (low, high) == pytest.approx((0.150039, 0.849961), abs=1e-6)
    ci = binomtest(2, 4).proportion_ci(method="wilson")
    assert (low, high) == pytest.approx((ci.low, ci.high))
    # p = 1 over 3: (1 + z^2/6 - z^2/6) / (1 + z^2/3) = 1 / 2.280486 = 0.438503, top 1.
    assert wilson_interval(1.0, 3) == pytest.approx((0.438503, 1.0), abs=1e-6)
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)


def test_weighted_share_uses_inverse_inclusion_and_kish_size():
    share = weighted_share([True, False, True], [1.0, 0.5, 0.25])
    # Weights 1, 2, 4: (1 + 4) / 7; effective size 7^2 / (1 + 4 + 16) = 7/3.
    assert share.estimate == pytest.approx(5 / 7)
    assert share.n == 3 and share.n_effective == pytest.approx(7 / 3)
    assert (share.low, share.high) == pytest.approx(wilson_interval(5 / 7, 7 / 3))
    plain = weighted_share([True, False, True, True])
    assert plain.estimate == 0.75 and plain.n_effective == 4.0
    empty = weighted_share([])
    assert empty.estimate is None and empty.n == 0
    with pytest.raises(ValueError):
        weighted_share([True], [0.0])


def test_weighted_confusion_by_hand():
    matrix = weighted_confusion([1, 1, 2, 9], [1, 2, 2, 1], [1, 2], [1.0, 0.5, 0.25, 1.0])
    np.testing.assert_allclose(matrix, [[1.0, 2.0], [0.0, 4.0]])  # 9 is no class: left out


def _side_with(campaign, reviewer, judge):
    for item in campaign.items.all():
        letter = next(
            "ABC"[i] for i, c in enumerate(item.candidates) if c["label"] == item.labels[judge]
        )
        label, option = chosen_label(item, letter, "")
        decide(item, reviewer, label, option)


@pytest.mark.django_db
def test_verdict_of_a_campaign_siding_with_bob(researcher):
    data = disagreement_collection()
    campaign = create_review_campaign(data.collection, "All", QueueChoice(kind="annotator_machine"))
    _side_with(campaign, researcher, "user:bob")
    verdict = review_verdict(campaign)
    by_name = {j.name: j for j in verdict.judges}
    assert verdict.n_decided == verdict.n_items == 3
    assert by_name["user:bob"].decided_their_way.estimate == 1.0
    assert by_name["user:ann"].decided_their_way.estimate == 0.0
    # gpt: p1 4 (bob 4: right), p2 1 (bob 5), p3 3 (bob 0): 1 of 3.
    assert by_name["gpt"].accuracy.estimate == pytest.approx(1 / 3)
    assert by_name["gpt"].kind == "LLM" and by_name["user:ann"].kind == "human"
    classes = verdict.classes
    assert classes == [0, 1, 2, 3, 4, 5]
    gpt = np.array(by_name["gpt"].confusion)
    assert gpt[4, 4] == 1 and gpt[1, 5] == 1 and gpt[3, 0] == 1 and gpt.sum() == 3


@pytest.mark.django_db
def test_verdict_weights_a_sampled_item_by_its_inclusion(researcher):
    data = disagreement_collection()
    campaign = create_review_campaign(data.collection, "Weighted", QueueChoice())
    # As if p1 had been drawn with probability 1/2 (its topic sampled at half).
    campaign.items.filter(key="t1/0/t1:0#1").update(inclusion=0.5)
    for item in campaign.items.all():
        decide(item, researcher, item.labels["user:ann" if item.key.endswith("#1") else "user:bob"])
    ann = next(j for j in review_verdict(campaign).judges if j.name == "user:ann")
    # ann right on p1 only: weights 2, 1, 1 -> 2/4 (unweighted it would be 1/3).
    assert ann.accuracy.estimate == pytest.approx(0.5)
    assert ann.decided_their_way.n == 0  # no option letter was chosen: typed labels


@pytest.mark.django_db
def test_page_and_command_print_the_same_verdict(researcher_client, researcher, client, annotator):
    data = disagreement_collection()
    campaign = create_review_campaign(data.collection, "Page", QueueChoice())
    _side_with(campaign, researcher, "user:bob")
    response = researcher_client.get(reverse("review-verdict", args=[campaign.pk]))
    assert response.status_code == 200
    assert 'id="verdict-table"' in response.text and "user:bob" in response.text
    out = io.StringIO()
    call_command("review_verdict", "--campaign", campaign.slug, stdout=out)
    data_json = json.loads(out.getvalue())
    assert data_json["adjudicated_judge"] == campaign.judge.name
    bob = next(j for j in data_json["judges"] if j["judge"] == "user:bob")
    assert bob["decided_their_way"]["estimate"] == 1.0 and bob["decided_their_way"]["n"] == 3
    page_bob = next(j for j in response.context["verdict"].judges if j.name == "user:bob")
    assert page_bob.as_dict() == bob
    client.force_login(annotator)
    assert client.get(reverse("review-verdict", args=[campaign.pk])).status_code == 403
