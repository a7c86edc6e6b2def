"""The assignment policy: "complete overlap first" (an item others labelled, still short of the
overlap, before any untouched one) and "cover every item once first"; the default by overlap;
the warning when the overlap exceeds the annotators."""

import pytest
from django.urls import reverse

from annotation.campaigns.forms import CampaignForm
from annotation.campaigns.setup import SelectionOptions
from annotation.models import Assignment, Campaign, CampaignItem
from annotation.quality.progress import overlap_warning
from annotation.queue import queue
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign, report_collection

pytestmark = pytest.mark.django_db

OVERLAP_FIRST = Campaign.AssignmentPolicy.OVERLAP_FIRST
COVERAGE_FIRST = Campaign.AssignmentPolicy.COVERAGE_FIRST


def rate(assignment, rating=3):
    return submit(assignment, {"rating": rating, "rationale": ""}, 1000)


def label_next(campaign, user) -> int:
    """Reserve and submit ``user``'s next item; its item id."""
    assignment = queue.next_item(campaign, user).assignment
    assert assignment is not None
    rate(assignment)
    return assignment.item_id


def doubly_labelled(campaign) -> int:
    return campaign.items.filter(annotations_done__gte=2).count()


def twenty_items(policy, annotators, overlap=2):
    collection = report_collection(n_passages=10)  # 2 real sub-questions x 10 passages
    campaign = make_campaign(
        collection=collection, overlap=overlap, assignment_policy=policy, annotators=annotators
    )
    assert campaign.items.count() == 20
    return campaign


def test_overlap_first_hands_out_what_others_labelled_before_untouched_items():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = twenty_items(OVERLAP_FIRST, [anna, ben])
    annas = [label_next(campaign, anna) for _ in range(3)]
    bens = [label_next(campaign, ben) for _ in range(4)]
    # Ben first completes the three items Anna labelled (oldest first), then starts new ones.
    assert bens[:3] == annas
    assert bens[3] not in annas
    # Anna now gets Ben's fourth item, which still needs her label, before any untouched one.
    assert label_next(campaign, anna) == bens[3]
    assert doubly_labelled(campaign) == 4


def test_cover_every_item_once_first_hands_out_untouched_items_first():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = twenty_items(COVERAGE_FIRST, [anna, ben])
    annas = [label_next(campaign, anna) for _ in range(3)]
    bens = [label_next(campaign, ben) for _ in range(4)]
    assert not set(annas) & set(bens)
    assert doubly_labelled(campaign) == 0


@pytest.mark.parametrize(("policy", "doubled"), [(OVERLAP_FIRST, 8), (COVERAGE_FIRST, 0)])
def test_seventeen_labels_of_two_annotators_working_side_by_side(policy, doubled):
    """The issue's case: 17 labels from two annotators, each holding an item while the other
    submits. Complete-overlap-first gives agreement 8 items; the other policy none."""
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = twenty_items(policy, [anna, ben])
    labels = 0
    while labels < 17:
        held = [queue.next_item(campaign, user).assignment for user in (anna, ben)]
        for assignment in held[: 17 - labels]:
            rate(assignment)
            labels += 1
    assert Assignment.objects.submitted().count() == 17
    assert doubly_labelled(campaign) == doubled


def test_the_most_labelled_item_comes_first_and_a_full_item_never():
    users = [make_annotator(name) for name in ("anna", "ben", "cleo", "dora")]
    anna, ben, cleo, dora = users
    campaign = twenty_items(OVERLAP_FIRST, users, overlap=3)
    first = label_next(campaign, anna)  # one label
    assert label_next(campaign, ben) == first  # two labels
    second = label_next(campaign, ben)  # one label (ben's second item)
    # Cleo: the item with two labels before the one with one label.
    assert label_next(campaign, cleo) == first
    assert label_next(campaign, cleo) == second
    # Dora: ``first`` is full (3 labels); ``second`` has 2 and comes before anything else.
    assert CampaignItem.objects.get(pk=first).annotations_done == 3
    assert label_next(campaign, dora) == second


def test_a_started_item_reserved_up_to_the_overlap_goes_to_nobody_else():
    anna, ben, cleo = (make_annotator(name) for name in ("anna", "ben", "cleo"))
    campaign = twenty_items(OVERLAP_FIRST, [anna, ben, cleo])
    first = label_next(campaign, anna)
    held = queue.next_item(campaign, ben).assignment
    assert held.item_id == first  # 1 label + 1 reservation: the overlap is reached
    assert queue.next_item(campaign, cleo).assignment.item_id != first


def test_overlap_one_gives_the_same_order_under_both_policies():
    orders = []
    collection = report_collection()
    for policy in (OVERLAP_FIRST, COVERAGE_FIRST):
        anna, ben = make_annotator(f"anna-{policy}"), make_annotator(f"ben-{policy}")
        campaign = make_campaign(
            name=policy,
            collection=collection,
            overlap=1,
            assignment_policy=policy,
            annotators=[anna, ben],
        )
        start = campaign.items.order_by("pk").first().pk
        order = []
        for _ in range(3):
            order += [label_next(campaign, anna) - start, label_next(campaign, ben) - start]
        orders.append(order)
    assert orders[0] == orders[1] == [0, 1, 2, 3, 4, 5]


def test_controls_still_come_on_their_interval_under_overlap_first():
    anna = make_annotator("anna")
    collection = report_collection(n_passages=10)
    campaign = make_campaign(
        collection=collection,
        overlap=2,
        control_interval=2,
        options=SelectionOptions(mode="every", attention_count=1),
        annotators=[anna],
    )
    kinds = []
    for _ in range(4):
        assignment = queue.next_item(campaign, anna).assignment
        kinds.append(assignment.item.is_control)
        rate(assignment)
    assert kinds == [False, False, True, False]


def _form_data(collection, **fields):
    data = {
        "name": "Policy",
        "collection": collection.pk,
        "task_type": "passage_rating",
        "selection_mode": "every",
        "seed": 0,
        "tau": 3,
        "overlap": 2,
        "reservation_seconds": 600,
        "gold_count": 0,
        "attention_count": 0,
        "control_interval": 5,
        "gold_min_accuracy": 0.7,
        "gold_tolerance": 1,
        "attention_min_pass_rate": 1.0,
        "qc_min_answers": 1,
        "qc_action": "warn",
    }
    return {**data, **fields}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"overlap": 2}, OVERLAP_FIRST),
        ({"overlap": 1}, COVERAGE_FIRST),
        ({"overlap": 3, "assignment_policy": COVERAGE_FIRST}, COVERAGE_FIRST),
        ({"overlap": 1, "assignment_policy": OVERLAP_FIRST}, OVERLAP_FIRST),
    ],
)
def test_the_form_defaults_to_overlap_first_for_agreement_campaigns(fields, expected):
    form = CampaignForm(_form_data(report_collection(), **fields))
    assert form.is_valid(), form.errors
    assert form.cleaned_data["assignment_policy"] == expected
    assert CampaignForm().initial.get("assignment_policy", OVERLAP_FIRST) == OVERLAP_FIRST


def test_an_unknown_policy_is_a_form_error():
    form = CampaignForm(_form_data(report_collection(), assignment_policy="random"))
    assert not form.is_valid() and "assignment_policy" in form.errors


def test_overlap_warning_text():
    assert overlap_warning(2, 2) == ""
    assert overlap_warning(2, 5) == ""
    assert "only" not in overlap_warning(3, 2)
    assert "but 2 annotators are invited" in overlap_warning(3, 2)
    assert "but 1 annotator is invited" in overlap_warning(2, 1)
    assert "Prolific" in overlap_warning(2, 0, prolific=True)


def test_the_campaign_page_warns_when_overlap_exceeds_the_annotators(researcher_client):
    anna, ben, cleo = (make_annotator(name) for name in ("anna", "ben", "cleo"))
    campaign = make_campaign(overlap=3, annotators=[anna, ben])
    url = reverse("campaign-detail", args=[campaign.pk])
    html = researcher_client.get(url).content.decode()
    assert 'id="overlap-warning"' in html and "but 2 annotators are invited" in html
    assert "complete overlap first" in html
    # An annotator already working counts too.
    campaign.invited.add(cleo)
    assert 'id="overlap-warning"' not in researcher_client.get(url).content.decode()
