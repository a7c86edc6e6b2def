"""The coverage matrix warns under a judge whose ratings are nearly constant on the collection
even where its ratings of the shown topic alone look varied (issue #34: coverage 1.00 under a
judge that gives 5 to 700 of 770 items, with no warning)."""

import re

import pytest
from django.urls import reverse

from crux_app.models import Judge
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_passages,
    make_run,
    make_topic,
    rate_passages,
)
from tests.evaluation.crux.degenerate_collection import FLAT, make_flat_collection

pytestmark = pytest.mark.django_db


def warnings_of(html: str) -> list[str]:
    items = re.findall(r'<li class="judge-warning"[^>]*>(.*?)</li>', html, re.S)
    return [re.sub(r"<[^>]+>", "", item).strip() for item in items]


def test_the_matrix_warns_about_a_judge_nearly_constant_on_the_collection(researcher_client):
    collection = make_collection("sunny")
    varied = make_topic(collection, "t1", n_subquestions=3)
    flat = make_topic(collection, "t2", n_subquestions=3)
    varied_passages = make_passages(collection, "t1", 10)
    flat_passages = make_passages(collection, "t2", 100)
    make_run(collection, "r1", varied, varied_passages[:5])
    sunny = make_judge("sunny-llm")
    expert = make_judge("expert", kind=Judge.Kind.HUMAN)
    # t1: 5 on 18 of 30 items, the rest spread (60%, entropy 0.6); t2: 5 on all 300.
    rate_passages(sunny, varied, varied_passages, lambda pos, i: 5 if i < 6 else (pos + i) % 5)
    rate_passages(sunny, flat, flat_passages, lambda pos, i: 5)
    rate_passages(expert, varied, varied_passages)
    url = reverse("crux-topic", args=[collection.pk, varied.pk])
    html = researcher_client.get(url, {"judge": sunny.pk}).content.decode()
    (warning,) = warnings_of(html)
    assert "sunny-llm gave 5 to 318 of 330 items in sunny (96%)" in warning
    assert html.index("judge-warnings") < html.index('id="matrix-plot"')
    # The expert's ratings of the same topic are not warned about.
    assert warnings_of(researcher_client.get(url, {"judge": expert.pk}).content.decode()) == []


def test_the_cell_panel_warns_about_a_nearly_constant_judge(researcher_client):
    flat = make_flat_collection()
    sq = flat.topic.subquestions.get(position=0)
    url = reverse("crux-topic-cell", args=[flat.collection.pk, flat.topic.pk])
    html = researcher_client.get(url, {"sq": sq.pk, "passage": flat.passages[0].pk}).content
    found = warnings_of(html.decode())
    assert f"nearly constant {FLAT} gave 4 to 29 of 30 items in flat (97%)" in " | ".join(found)
    # broken-llm's unparsable outputs, the other judge of this cell with a warning; none else.
    assert len(found) == 2 and "could not be parsed" in " | ".join(found)
