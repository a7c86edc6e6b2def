"""The matrix cell's drill-down shows the history of its labels from the audit trail: who
changed which judge's rating, from what to what."""

import pytest
from django.urls import reverse

from crux_app.audit.context import audit_context
from crux_app.models import Judgment
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


def test_the_cell_panel_shows_each_change_of_its_judgments(researcher_client, researcher):
    hand = make_hand_collection()
    judgment = Judgment.objects.filter(judge=hand.llm, task="passage_rating").first()
    old = judgment.rating
    with audit_context(user_id=researcher.pk, username="rita", origin="web"):
        judgment.rating = 0 if old else 5
        judgment.save()
    url = reverse("crux-topic-cell", args=[hand.collection.pk, judgment.topic_id])
    query = {"sq": judgment.subquestion_id, "passage": judgment.passage_id}
    page = researcher_client.get(url, query).content.decode()
    assert 'id="cell-history"' in page and "judgment.update" in page
    assert f"{old} → {judgment.rating}" in page and "rita" in page
    assert "llm-judge" in page.split('id="cell-history"')[1]
