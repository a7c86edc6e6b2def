"""The matrix's ``n`` key visits cells where another judge's rating is on the other side of tau
from the shown judge's, also when the shown judge is the person (issue #34: "No unjudged or
disagreeing cell" where the embedding judge gave 5 and the expert 0)."""

import pytest

from crux_app.models import Judge
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_run,
    make_topic,
    rate_passages,
)
from tests.evaluation.crux.test_matrix import matrix_url, shipped

pytestmark = pytest.mark.django_db


def test_n_visits_the_machines_disagreements_under_the_expert(researcher_client):
    collection = make_collection("dis")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    make_run(collection, "r1", topic, passages)
    expert = make_judge("expert", kind=Judge.Kind.HUMAN)
    embedder = make_judge("embedder", prompt_version="cosine-v1")
    rate_passages(expert, topic, passages, lambda pos, i: 0)
    # 5 on (sub-question 0, passage 1), 2 (same side of tau as 0) elsewhere.
    rate_passages(embedder, topic, passages, lambda pos, i: 5 if (pos, i) == (0, 1) else 2)
    shown = shipped(researcher_client.get(matrix_url(topic, judge=expert.pk, tau=3)))
    assert shown["attention"] == [[0, 1, "embedder: other side of tau"]]
    # Shown the other way round, the expert's 0 is marked against the embedder's 5.
    other = shipped(researcher_client.get(matrix_url(topic, judge=embedder.pk, tau=3)))
    assert [0, 1, "human: other side of tau"] in other["attention"]
