"""The leaderboard, the coverage matrix and the topic page's CRUX card open on a person who
labelled the collection (not on the machine judge with the most ratings), remember the user's
last choice per collection, and the card names its judge, offers the others and warns."""

import json
import re

import pytest
from django.urls import reverse

from tests.evaluation.crux.degenerate_collection import (
    FLAT,
    HUMAN,
    SPREAD,
)
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


def leaderboard_judge(client, flat, **params) -> str:
    response = client.get(reverse("leaderboard", args=[flat.collection.pk]), params)
    assert response.status_code == 200
    return response.context["board"].above[0].context["evaluation"].judge.name


def matrix_judge(client, flat, **params) -> int:
    url = reverse("crux-topic", args=[flat.collection.pk, flat.topic.pk])
    response = client.get(url, params)
    assert response.status_code == 200
    data = re.search(
        r'<script id="matrix-data" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    return json.loads(data.group(1))["judge"]


def topic_card(client, flat, **params) -> str:
    response = client.get(reverse("topic-detail", args=[flat.collection.pk, flat.topic.pk]), params)
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('id="summary-crux"')
    return html[start : html.index("</article>", start)]


def test_every_page_opens_on_the_person_not_the_degenerate_machine_judge(researcher_client, flat):
    assert leaderboard_judge(researcher_client, flat, k=2) == HUMAN
    assert matrix_judge(researcher_client, flat) == flat.judges[HUMAN].pk
    assert "Ratings of <b>annotator</b> (human, 30 ratings" in topic_card(researcher_client, flat)
    html = researcher_client.get(reverse("leaderboard", args=[flat.collection.pk])).text
    assert "LLM judge with most ratings" not in html
    assert (
        "a person who labelled the collection, else the most informative machine judge; never a "
        "nearly constant one while another is there"
    ) in html


def test_the_last_choice_is_remembered_per_collection_on_every_page(researcher_client, flat):
    other = make_hand_collection()  # its default: llm-judge (its person rated 1 of 3 topics)
    # Chosen on the leaderboard: the matrix and the topic card of that collection follow.
    assert leaderboard_judge(researcher_client, flat, k=2, judge=FLAT) == FLAT
    assert leaderboard_judge(researcher_client, flat, k=2) == FLAT
    assert matrix_judge(researcher_client, flat) == flat.judges[FLAT].pk
    assert "Ratings of <b>flat-llm</b>" in topic_card(researcher_client, flat)
    # Not another collection.
    assert leaderboard_judge(researcher_client, other, k=2) == "llm-judge"
    # Chosen on the matrix: the leaderboard follows.
    assert matrix_judge(researcher_client, flat, judge=flat.judges[SPREAD].pk) == (
        flat.judges[SPREAD].pk
    )
    assert leaderboard_judge(researcher_client, flat, k=2) == SPREAD
    # Chosen on the topic card.
    card = topic_card(researcher_client, flat, judge=flat.judges[FLAT].pk)
    assert "Ratings of <b>flat-llm</b>" in card
    assert leaderboard_judge(researcher_client, flat, k=2) == FLAT
    # The leaderboard's "default" entry forgets the choice.
    assert leaderboard_judge(researcher_client, flat, k=2, judge="") == HUMAN
    assert leaderboard_judge(researcher_client, flat, k=2) == HUMAN
    assert matrix_judge(researcher_client, flat) == flat.judges[HUMAN].pk


def test_the_topic_card_names_its_judge_offers_the_others_and_warns(researcher_client, flat):
    card = topic_card(researcher_client, flat, judge=flat.judges[FLAT].pk)
    # A selector of every judge that rated the topic, the shown one selected.
    options = re.findall(r'<option value="(\d+)"( selected)?>([^<]*)</option>', card)
    assert {int(pk) for pk, _, _ in options} == {j.pk for j in flat.judges.values()}
    (selected,) = [label for _, chosen, label in options if chosen]
    assert selected.startswith("flat-llm (LLM, ")
    # The degenerate judge is said to be so, and the tie it makes.
    kinds = re.findall(r'data-kind="([^"]+)" data-judge="flat-llm"', card)
    assert "constant_ratings" in kinds and "tied_runs" in kinds
    assert "flat-llm gave 4 to 29 of 30 items on topic t1 (97%)" in card
    assert "Every run scores 1.0000 on Coverage@10 under flat-llm (2 runs)" in card
    # The numbers stay.
    assert card.count("<b>1.00</b>") == 2
    # An informative judge is not called constant (at k=10 both runs still tie under it).
    spread = topic_card(researcher_client, flat, judge=flat.judges[SPREAD].pk)
    assert 'data-kind="constant_ratings"' not in spread


def test_a_bad_judge_parameter_is_refused(researcher_client, flat):
    url = reverse("topic-detail", args=[flat.collection.pk, flat.topic.pk])
    for garbage in ("abc", "99999999", "1e3"):
        assert researcher_client.get(url, {"judge": garbage}).status_code == 400
