"""The matrix cell panel: every judge's view of a cell, and the researcher's expert rating."""

import json
import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

from crux_app.models import Judge, Judgment
from tests.crux_app.factories import make_collection, make_passages
from tests.evaluation.crux.matrix_seed import make_matrix_topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand():
    return make_matrix_topic()


def cell_url(topic, **params) -> str:
    url = reverse("crux-topic-cell", args=[topic.collection_id, topic.pk])
    return url + "?" + urlencode(params)


def open_cell(client, hand, position, passage, **extra):
    sq = hand.subquestions[position]
    return client.get(cell_url(hand.topic, sq=sq.pk, passage=passage.pk, **extra))


def rating_post(hand, position, passage, **fields) -> dict:
    return {"subquestion": hand.subquestions[position].pk, "passage": passage.pk, **fields}


def own_judgments(user):
    return Judgment.objects.filter(judge__user=user)


def test_panel_shows_passage_question_and_every_judges_rating(researcher_client, hand):
    p1 = hand.passages[1]
    response = open_cell(researcher_client, hand, 0, p1, judge=hand.llm_a.pk, tau=3)
    assert response.status_code == 200
    html = response.text
    assert "0. What is aspect 0 of m1?" in html
    assert p1.text.strip() in html and 'id="cell-passage-text"' in html
    rows = {j.judge.name: j.rating for j in response.context["cell"].judgments}
    assert rows == {"llm-a": 5, "annotator1": 1}
    assert 'data-judge="llm-a"' in html and 'data-judge="annotator1"' in html
    assert "Rating: 5" in html  # the LLM's raw output
    assert "RUBRIC PROMPT for position 0 and passage p1" in html  # its stored prompt
    assert 'class="selected-judge" data-judge="llm-a"' in html
    assert "- 5: The context is highly relevant" in html  # the rubric guideline
    assert html.count('type="radio" name="rating"') == 6


def test_panel_shows_an_unparsable_output(researcher_client, hand):
    response = open_cell(researcher_client, hand, 3, hand.passages[3])
    assert "unparsable" in response.text
    assert "I cannot tell." in response.text


@pytest.mark.parametrize("sq", [999999, 2**63 - 1])
def test_unknown_cell_is_404(researcher_client, hand, sq):
    url = cell_url(hand.topic, sq=sq, passage=hand.passages[0].pk)
    assert researcher_client.get(url).status_code == 404


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"sq": "x"}, "sq"),
        ({"sq": "²"}, "sq"),
        ({"sq": "9" * 5000}, "sq"),
        ({"sq": 10**30}, "sq"),
        ({}, "sq"),
        ({"sq": 1, "passage": "-1"}, "passage"),
    ],
)
def test_a_malformed_cell_parameter_is_400_naming_it(researcher_client, hand, params, field):
    params = {"passage": hand.passages[0].pk, **params}
    response = researcher_client.get(cell_url(hand.topic, **params))
    assert response.status_code == 400
    assert response.text.startswith(f"{field}: ")


def test_a_malformed_tau_or_judge_of_the_panel_falls_back(researcher_client, hand):
    cell = {"sq": hand.subquestions[0].pk, "passage": hand.passages[0].pk}
    response = researcher_client.get(cell_url(hand.topic, **cell, tau="²", judge="9" * 5000))
    assert response.status_code == 200
    assert response.context["tau"] == 3 and response.context["selected_judge_id"] is None


def test_placeholder_position_and_foreign_passage_are_not_cells(researcher_client, hand):
    assert open_cell(researcher_client, hand, 2, hand.passages[0]).status_code == 404
    foreign = make_passages(make_collection("elsewhere"), "x", 1)[0]
    assert open_cell(researcher_client, hand, 0, foreign).status_code == 404


def test_expert_rating_is_stored_once_and_a_second_post_updates_it(
    researcher_client, researcher, hand
):
    p1 = hand.passages[1]
    url = cell_url(hand.topic, sq=hand.subquestions[0].pk, passage=p1.pk, tau=3)
    text = p1.text
    response = researcher_client.post(
        url,
        rating_post(
            hand,
            0,
            p1,
            rating=2,
            rationale=text[10:19],
            rationale_start=10,
            rationale_end=19,
            time_spent_ms=4200,
        ),
    )
    assert response.status_code == 200
    assert json.loads(response["HX-Trigger"])["matrix-changed"]["passage"] == p1.pk
    assert "Your rating was saved." in response.text
    judge = Judge.objects.get(user=researcher)
    assert (judge.name, judge.kind) == ("rita", Judge.Kind.HUMAN)
    stored = own_judgments(researcher).get()
    assert (stored.rating, stored.rationale, stored.rationale_start, stored.rationale_end) == (
        2,
        text[10:19],
        10,
        19,
    )
    assert (stored.task, stored.topic_id, stored.time_spent_ms) == (
        "passage_rating",
        hand.topic.pk,
        4200,
    )
    assert 'data-judge="rita"' in response.text  # the re-rendered panel lists it

    response = researcher_client.post(url, rating_post(hand, 0, p1, rating=4, rationale=" typed "))
    assert "Your rating was updated." in response.text
    assert own_judgments(researcher).count() == 1
    stored.refresh_from_db()
    assert (stored.rating, stored.rationale, stored.rationale_start) == (4, "typed", None)
    assert Judge.objects.filter(kind=Judge.Kind.HUMAN).count() == 2


def test_stored_rating_prefills_the_form_and_marks_the_matrix(researcher_client, researcher, hand):
    p3 = hand.passages[3]
    researcher_client.post(
        cell_url(hand.topic, sq=hand.subquestions[1].pk, passage=p3.pk),
        rating_post(hand, 1, p3, rating=0),
    )
    panel = open_cell(researcher_client, hand, 1, p3)
    assert re.search(r'name="rating" value="0"[^>]*\bchecked', panel.text)
    assert not re.search(r'name="rating" value="[1-5]"[^>]*\bchecked', panel.text)
    matrix = researcher_client.get(
        reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk]) + "?k=2&tau=3"
    ).context["matrix"]
    # llm-a rated (1, p3) a 3: the researcher's 0 is on the other side of tau.
    assert matrix.disagreement[1, 0] == 3
    assert matrix.human_ratings[(1, 0)] == [("rita", 0)]


def test_an_imported_judge_named_like_the_researcher_keeps_its_labels(
    researcher_client, researcher, hand
):
    imported = Judge.objects.create(name="rita", kind=Judge.Kind.HUMAN)
    p0 = hand.passages[0]
    researcher_client.post(
        cell_url(hand.topic, sq=hand.subquestions[0].pk, passage=p0.pk),
        rating_post(hand, 0, p0, rating=5),
    )
    judge = Judge.objects.get(user=researcher)
    assert judge != imported and judge.name == f"rita (account {researcher.pk})"
    assert not imported.judgments.exists()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "Choose a rating from 0 to 5."),
        ({"rating": 6}, "The rating must be a whole number from 0 to 5."),
        ({"rating": "four"}, "The rating must be a whole number from 0 to 5."),
        ({"rating": 3, "subquestion": 999999}, "Unknown sub-question for this topic."),
        ({"rating": 3, "passage": 999999}, "Unknown passage for this collection."),
        (
            {"rating": 3, "rationale": "not in the text", "rationale_start": 0, "rationale_end": 5},
            "The rationale differs from the selected passage text.",
        ),
        (
            {"rating": 3, "rationale": "x", "rationale_start": 0, "rationale_end": 100000},
            "lies outside the passage",
        ),
        ({"rating": 3, "rationale": "x", "rationale_start": 4}, "needs both a start and an end"),
    ],
)
def test_invalid_rating_shows_the_error_and_stores_nothing(
    researcher_client, researcher, hand, fields, message
):
    p1 = hand.passages[1]
    before = Judgment.objects.count()
    response = researcher_client.post(
        cell_url(hand.topic, sq=hand.subquestions[0].pk, passage=p1.pk),
        {**rating_post(hand, 0, p1), **fields},
    )
    assert response.status_code == 200
    assert message in response.text
    assert 'class="error field-error"' in response.text
    assert "HX-Trigger" not in response
    assert Judgment.objects.count() == before
    assert not Judge.objects.filter(user=researcher).exists()


def test_invalid_post_on_an_unknown_cell_says_so(researcher_client, hand):
    response = researcher_client.post(
        cell_url(hand.topic, sq=0, passage=0),
        {"subquestion": hand.subquestions[2].pk, "passage": hand.passages[0].pk, "rating": 3},
    )
    assert response.status_code == 200
    assert 'id="cell-missing"' in response.text
    assert "Unknown sub-question for this topic." in response.text  # a placeholder position


def test_time_spent_is_capped_not_refused(researcher_client, researcher, hand):
    p0 = hand.passages[0]
    researcher_client.post(
        cell_url(hand.topic, sq=hand.subquestions[0].pk, passage=p0.pk),
        rating_post(hand, 0, p0, rating=1, time_spent_ms=10**12),
    )
    assert own_judgments(researcher).get().time_spent_ms == 24 * 3600 * 1000


def test_annotator_cannot_open_or_rate_cells(client, annotator, hand):
    client.force_login(annotator)
    p1 = hand.passages[1]
    assert open_cell(client, hand, 0, p1).status_code == 403
    url = cell_url(hand.topic, sq=hand.subquestions[0].pk, passage=p1.pk)
    assert client.post(url, rating_post(hand, 0, p1, rating=3)).status_code == 403
    assert not Judgment.objects.filter(judge__user=annotator).exists()
