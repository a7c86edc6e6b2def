"""Campaign creation: item selection per task and mode, gold items, attention checks."""

import pytest

from annotation.campaigns.setup import (
    GoldUploadError,
    SelectionOptions,
    apply_gold_csv,
    create_campaign,
)
from annotation.models import Campaign, CampaignItem
from annotation.queue.selection import SelectionError
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from crux_app.models import Judge, SubQuestion
from tests.crux_app.factories import make_judge, rate_passages

from .campaign_data import make_campaign, qa_collection, report_collection

pytestmark = pytest.mark.django_db


def test_every_pair_of_real_subquestions_and_pooled_passages():
    campaign = make_campaign(PASSAGE_RATING)
    items = list(campaign.items.order_by("id"))
    assert len(items) == 2 * 4  # placeholder position 1 is left out
    assert {i.payload["position"] for i in items} == {0, 2}
    first = items[0].payload
    assert first["passage_id"] == "duc-1:0#0" and first["passage"].startswith("Passage 0")
    assert first["question"] == "What is aspect 0 of duc-1?"
    assert campaign.selection["items"] == 8 and campaign.slug == "passage_rating-campaign"


def test_random_sample_is_seeded():
    options = SelectionOptions(mode="sample", sample_size=3, seed=11)
    a = make_campaign(PASSAGE_RATING, options=options, name="a")
    b = make_campaign(PASSAGE_RATING, collection=a.collection, options=options, name="b")
    pick = lambda c: [(i.subquestion_id, i.passage_id) for i in c.items.order_by("id")]  # noqa: E731
    assert len(pick(a)) == 3 and pick(a) == pick(b)


def test_crux_protocol_takes_one_answerable_and_one_unanswerable_question_per_passage():
    collection = report_collection(n_passages=3)
    topic = collection.topics.get()
    passages = list(collection.passages.order_by("external_id"))
    llm = make_judge("smollm")
    # Passage 0: both questions answerable; passages 1, 2: position 0 yes, position 2 no.
    rate_passages(llm, topic, passages, rating=lambda pos, i: 5 if (pos == 0 or i == 0) else 1)
    options = SelectionOptions(mode="crux", crux_judge=llm, tau=3, seed=1)
    campaign = make_campaign(PASSAGE_RATING, collection=collection, options=options)
    by_passage = {}
    for item in campaign.items.all():
        by_passage.setdefault(item.payload["passage_id"], []).append(item.payload["position"])
    assert sorted(by_passage["duc-1:0#1"]) == [0, 2]
    assert sorted(by_passage["duc-1:0#2"]) == [0, 2]
    assert len(by_passage["duc-1:0#0"]) == 1  # no unanswerable question for it
    # Blindness: the LLM's ratings are not in what annotators see.
    assert all("rating" not in item.payload for item in campaign.items.all())


def test_crux_protocol_needs_a_judge_and_task_one():
    collection = report_collection()
    with pytest.raises(SelectionError) as caught:
        make_campaign(PASSAGE_RATING, collection=collection, options=SelectionOptions(mode="crux"))
    assert caught.value.field == "crux_judge"
    llm = make_judge("smollm")
    with pytest.raises(SelectionError) as caught:
        make_campaign(
            REPORT_COVERAGE,
            collection=collection,
            options=SelectionOptions(mode="crux", crux_judge=llm),
        )
    assert caught.value.field == "selection_mode"
    assert not Campaign.objects.exists()  # nothing half-written


def test_report_coverage_items_list_the_real_subquestions():
    campaign = make_campaign(REPORT_COVERAGE)
    items = list(campaign.items.order_by("id"))
    assert len(items) == 2
    questions = items[0].payload["questions"]
    assert [q["position"] for q in questions] == [0, 2]
    assert questions[0]["subquestion_id"] == SubQuestion.objects.get(position=0).pk
    assert items[0].payload["report"].startswith("Floods hit")


def test_answer_equivalence_items_skip_semi_gold_answers():
    qa = qa_collection()
    campaign = make_campaign(ANSWER_EQUIVALENCE, collection=qa.collection)
    items = list(campaign.items.order_by("id"))
    assert [i.output_id for i in items] == [o.pk for o in qa.rag_answers]
    assert items[0].payload["gold_answers"] == ["Author 0", "A. 0"]
    assert items[0].payload["response"] == "Someone 0"


def test_failure_category_items_carry_gold_retrieved_and_both_answers():
    qa = qa_collection(n_topics=1)
    campaign = make_campaign(FAILURE_CATEGORY, collection=qa.collection)
    item = campaign.items.get()
    p = item.payload
    assert item.reference_output_id == qa.semi_gold[0].pk
    assert [g["id"] for g in p["gold_passages"]] == ["q0:0#0"]
    assert [(r["id"], r["rank"], r["is_gold"]) for r in p["retrieved"]] == [
        ("q0:0#1", 1, False),
        ("q0:0#0", 2, True),
    ]
    assert (p["rag_answer"], p["semi_gold_answers"]) == ("Someone 0", ["Author 0"])


def test_a_collection_without_items_for_the_task_is_a_clear_error():
    with pytest.raises(SelectionError, match="generated answers on topics with gold answers"):
        make_campaign(ANSWER_EQUIVALENCE, collection=report_collection())


def test_gold_items_from_a_judge_and_attention_checks():
    collection = report_collection()
    expert = make_judge("expert", kind=Judge.Kind.HUMAN)
    topic = collection.topics.get()
    rate_passages(expert, topic, list(collection.passages.all()), rating=lambda pos, i: i)
    options = SelectionOptions(mode="every", gold_judge=expert, gold_count=3, attention_count=2)
    campaign = make_campaign(PASSAGE_RATING, collection=collection, options=options)
    gold = list(campaign.items.filter(is_gold=True))
    assert len(gold) == 3 and all(g.is_control for g in gold)
    for g in gold:
        assert g.gold_answer == {"rating": int(g.payload["passage_id"][-1])}
    checks = campaign.items.filter(kind=CampaignItem.Kind.ATTENTION)
    assert checks.count() == 2 and all(c.expected_answer for c in checks)


def test_gold_csv_sets_answers_or_fails_whole_naming_the_line():
    campaign = make_campaign(PASSAGE_RATING)
    first, second = campaign.items.order_by("id")[:2]
    assert apply_gold_csv(campaign, f"item,answer\n{first.pk},4\n{second.pk},\n") == 2
    first.refresh_from_db()
    assert (first.is_gold, first.gold_answer) == (True, {"rating": 4})
    with pytest.raises(GoldUploadError, match=r"gold.csv, line 3, column answer"):
        apply_gold_csv(campaign, f"item,answer\n{second.pk},2\n{first.pk},9\n")
    second.refresh_from_db()
    assert not second.is_gold  # the good line was not applied either
    with pytest.raises(GoldUploadError, match="line 2, column item: '999999'"):
        apply_gold_csv(campaign, "item,answer\n999999,1\n")
    with pytest.raises(GoldUploadError, match="missing column"):
        apply_gold_csv(campaign, "id,answer\n1,1\n")


def test_campaign_creation_is_atomic():
    collection = report_collection()
    campaign = Campaign(name="x", collection=collection, task_type=ANSWER_EQUIVALENCE)
    with pytest.raises(SelectionError):
        create_campaign(campaign, SelectionOptions(mode="every"))
    assert not Campaign.objects.exists() and not CampaignItem.objects.exists()
