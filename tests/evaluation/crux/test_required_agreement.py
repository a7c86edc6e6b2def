"""The greedy required subset against imported grades, on the hand-made collection.

Greedy at tau 3 (see evaluate_collection's docstring for the ratings):
- ta: every judged passage answers one new question, so p0, p1, p3 become required (first on
  ties); m = [4, 3, 5] and p2 = [5, 0, 0] is not strictly below m on q0: partially redundant.
  Computed p0 3, p1 3, p2 2, p3 3 against imported p0 3, p1 3, p2 1.
- tb: b0 and b1 each answer one question: both required; imported b0 3.
- tc: c0 rates 1, so nothing is required and c0 gets no computed grade; imported c0 3.
Shared: ta p0, p1, p2 and tb b0 (n = 4), equal on 3; only computed: ta p3, tb b1; only
imported: tc c0.
"""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.evaluation.crux.evaluate_collection import make_hand_collection


@pytest.mark.django_db
def test_required_agreement_matches_the_hand_computed_confusion():
    hand = make_hand_collection()
    out = StringIO()
    call_command(
        "evaluate", "--collection", hand.collection.name, "--required-agreement", stdout=out
    )
    record = json.loads(out.getvalue())
    assert record["judge"] == hand.llm.name
    assert record["qrels_source"] == "imported"
    assert record["labels"] == [1, 2, 3]
    assert record["confusion"] == [[0, 1, 0], [0, 0, 0], [0, 0, 3]]
    assert record["n"] == 4
    assert record["exact_match"] == pytest.approx(0.75)
    assert (record["only_computed"], record["only_imported"]) == (2, 1)


@pytest.mark.django_db
def test_required_agreement_without_qrels_is_a_clear_error():
    hand = make_hand_collection()
    for topic in hand.collection.topics.all():
        topic.qrels.all().delete()
    with pytest.raises(CommandError, match="has no passage qrels to compare"):
        call_command("evaluate", "--collection", hand.collection.name, "--required-agreement")
