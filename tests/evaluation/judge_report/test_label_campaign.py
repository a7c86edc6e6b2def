"""'Label N more topics/items' from the judge report: the campaign it creates, which choices
keep PPI unbiased, the PPI section's note on a non-random campaign, and garbage -> 400."""

import pytest
from django.urls import reverse

from annotation.campaigns.from_items import create_campaign_from_items
from annotation.models import Campaign, CampaignItem
from annotation.queue.selection import SelectionError
from crux_app.models import SubQuestion
from tests.crux_app.factories import make_collection, make_passages, make_topic
from tests.evaluation.judge_report.two_judges import make_two_judges

pytestmark = pytest.mark.django_db


def post(client, two, **fields):
    data = {
        "judge_a": "llm-judge",
        "judge_b": "people",
        "k": "3",
        "unit": "topics",
        "strategy": "random",
        "measure": "disagreement",
        "tau": "3",
        "n": "1",
        "seed": "0",
        "name": "next labels",
        "overlap": "2",
    } | fields
    return client.post(reverse("judge-report-campaign", args=[two.collection.pk]), data)


def topics_of(campaign):
    items = CampaignItem.objects.filter(campaign=campaign, is_attention_check=False)
    return sorted(set(items.values_list("topic__external_id", flat=True))), items.count()


def test_random_topics_give_whole_unlabelled_topics(researcher_client):
    two = make_two_judges()
    response = post(researcher_client, two, n="2")
    campaign = Campaign.objects.get(name="next labels")
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign-detail", args=[campaign.pk])
    # people labelled t0..t3; the runs' top 3 pool all 4 passages: 2 sub-questions x 4 each
    assert topics_of(campaign) == (["t4", "t5"], 16)
    selection = campaign.selection
    assert selection["source"] == "judge_report" and selection["keeps_ppi_unbiased"] is True
    assert selection["unit"] == "topics" and selection["reference"] == "people"
    assert campaign.task_type == "passage_rating" and campaign.overlap == 2
    page = researcher_client.get(reverse("judge-report", args=[two.collection.pk]))
    assert (
        'id="label-campaign-form"' in page.text and 'id="judge-report-selection"' not in page.text
    )


def test_uncertain_topics_by_ratings_near_tau_and_the_ppi_note(researcher_client):
    two = make_two_judges()
    # near tau 3: the mean of -|rating - 2.5| over a topic's 8 items: t4 -2.25, t5 -1.875
    post(researcher_client, two, strategy="uncertain", measure="near_tau", n="1")
    campaign = Campaign.objects.get(name="next labels")
    assert topics_of(campaign) == (["t5"], 8)
    assert campaign.selection["keeps_ppi_unbiased"] is False
    page = researcher_client.get(
        reverse("judge-report", args=[two.collection.pk]), {"k": "3", "resamples": "0"}
    )
    notes = page.context["data"]["ppi"]["selection_notes"]
    assert len(notes) == 1 and "'next labels' labels topics chosen uncertain" in notes[0]
    assert 'id="judge-report-selection"' in page.text


def test_random_items_are_items_the_reference_has_not_rated(researcher_client):
    two = make_two_judges()
    post(researcher_client, two, unit="items", n="3", seed="7")
    campaign = Campaign.objects.get(name="next labels")
    topics, count = topics_of(campaign)
    assert count == 3 and set(topics) <= {"t4", "t5"}
    assert campaign.selection["keeps_ppi_unbiased"] is False  # single items complete no topic
    post(researcher_client, two, unit="items", n="3", seed="7", name="again")
    again = Campaign.objects.get(name="again")
    key = ["topic_id", "subquestion_id", "passage_id"]
    assert list(again.items.order_by("pk").values_list(*key)) == list(
        campaign.items.order_by("pk").values_list(*key)
    )


def test_stratified_items(researcher_client):
    two = make_two_judges()
    response = post(researcher_client, two, unit="items", strategy="stratified", n="4")
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="next labels")
    assert topics_of(campaign)[1] == 4 and campaign.selection["strategy"] == "stratified"


def test_entropy_needs_distributions(researcher_client):
    two = make_two_judges()
    response = post(researcher_client, two, strategy="uncertain", measure="entropy")
    assert response.status_code == 400 and "rating distributions" in response.text
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    "fields",
    [
        {"n": "0"},
        {"n": "abc"},
        {"n": "100001"},
        {"unit": "pages"},
        {"strategy": "best"},
        {"judge_a": "nobody"},
        {"judge_b": "llm-judge"},
        {"name": ""},
        {"overlap": "0"},
        {"k": "-1"},
    ],
)
def test_garbage_is_a_400(researcher_client, fields):
    two = make_two_judges()
    response = post(researcher_client, two, **fields)
    assert response.status_code == 400
    assert not Campaign.objects.exists()


def test_researchers_only(client, annotator):
    two = make_two_judges()
    client.force_login(annotator)
    assert post(client, two).status_code == 403


def test_the_annotation_service_refuses_keys_outside_the_collection():
    two = make_two_judges()
    other = make_collection("other")
    topic = make_topic(other, "x", n_subquestions=1)
    (passage,) = make_passages(other, "x", 1)
    sq = SubQuestion.objects.filter(topic=two.topics[0]).first()
    campaign = Campaign(name="c", collection=two.collection, task_type="passage_rating")
    for key, message in [
        ((two.topics[0].pk, sq.pk, passage.pk), "not a passage with text"),
        ((topic.pk, sq.pk, two.passages[0][0].pk), "not a real sub-question"),
        ((two.topics[1].pk, sq.pk, two.passages[0][0].pk), "not a real sub-question"),
    ]:
        with pytest.raises(SelectionError, match=message):
            create_campaign_from_items(campaign, [key], {})
    with pytest.raises(SelectionError, match="twice"):
        key = (two.topics[0].pk, sq.pk, two.passages[0][0].pk)
        create_campaign_from_items(campaign, [key, key], {})
    assert not Campaign.objects.exists()
    made = create_campaign_from_items(
        campaign, [(two.topics[0].pk, sq.pk, two.passages[0][1].pk)], {"why": "test"}
    )
    (item,) = made.items.all()
    assert item.payload["passage_id"] == two.passages[0][1].external_id
    assert made.selection["why"] == "test" and made.selection["items"] == 1
