"""Paying the crowd: approve / reject / review with reasons from the quality evidence, bonuses
topping pay up to the minimum hourly rate (and a skill bonus), and Prolific's files (approvals;
bulk bonus ``participant_id,amount`` per line), reviewed on the page before download."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.crowd.payment import (
    APPROVE,
    REJECT,
    REVIEW,
    PaymentParams,
    bonus_file,
    payment_rows,
)
from annotation.models import AnnotatorProfile, CampaignItem
from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit

from .campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db

PIDS = {"ann": "a" * 24, "bob": "b" * 24, "cat": "c" * 24}
# Prolific's bulk bonus: one "participant_id,amount" per line (24 hex id, 2 decimals).
BONUS_LINE = re.compile(r"^[0-9a-f]{24},\d+\.\d{2}$")


@pytest.fixture
def paid_campaign():
    people = {name: make_annotator(name) for name in PIDS}
    campaign = make_campaign(PASSAGE_RATING, annotators=list(people.values()), overlap=3,
                             control_interval=1)  # fmt: skip
    checks = list(campaign.items.order_by("pk")[:2])
    CampaignItem.objects.filter(pk__in=[c.pk for c in checks]).update(
        is_attention_check=True, expected_answer={"rating": 5}
    )
    # ann: careful, 60 s per item; bob: fails both attention checks; cat: 0.2 s per item.
    plans = {"ann": (5, 60_000), "bob": (0, 60_000), "cat": (5, 200)}
    for name, (check_answer, ms) in plans.items():
        user = people[name]
        while (nxt := queue.next_item(campaign, user)).assignment is not None:
            item = nxt.assignment.item
            rating = check_answer if item.is_attention_check else 2
            submit(nxt.assignment, {"rating": rating}, ms)
    for name, user in people.items():
        AnnotatorProfile.objects.filter(user=user).update(
            source="prolific", prolific_pid=f"{PIDS[name]}:{'d' * 24}"
        )
    return campaign


def test_decisions_reasons_and_bonuses(paid_campaign):
    params = PaymentParams(reward=1.0, minimum_hourly=9.0, skill_bonus=0.5, skill_bonus_min=0.8)
    rows = {r.username: r for r in payment_rows(paid_campaign, params)}
    n = rows["ann"].labels + 2  # every item, the checks included
    assert rows["ann"].time_ms == n * 60_000
    assert (rows["ann"].decision, rows["ann"].reason) == (APPROVE, "")
    assert (rows["bob"].decision, rows["bob"].reason) == (REJECT, "Failed 2 of 2 attention checks")
    assert rows["cat"].decision == REVIEW and "floor" in rows["cat"].reason
    # ann: n minutes at 9/h is 0.15 n; the reward 1.00 counts first; skill 1.0 >= 0.8: +0.50.
    assert rows["ann"].bonus == pytest.approx(round(max(0, 0.15 * n - 1.0), 2) + 0.5)
    assert rows["ann"].under_minimum == (1.0 / (n / 60) < 9.0)
    assert rows["bob"].bonus == 0.0 and rows["bob"].hourly == 0.0
    lines = bonus_file(list(rows.values())).splitlines()
    assert all(BONUS_LINE.match(line) for line in lines)
    assert [line.split(",")[0] for line in lines] == [PIDS["ann"], PIDS["cat"]]


def test_the_page_shows_the_files_before_their_download(paid_campaign, researcher_client):
    url = reverse("campaign-payment", args=[paid_campaign.pk])
    query = {"reward": "0.50", "minimum_hourly": "12.00", "skill_bonus": "0",
             "skill_bonus_min": "0.8"}  # fmt: skip
    page = researcher_client.get(url, query)
    assert page.status_code == 200
    approvals = researcher_client.get(
        reverse("campaign-payment-file", args=[paid_campaign.pk, "approvals"]), query
    ).content.decode()
    bonuses = researcher_client.get(
        reverse("campaign-payment-file", args=[paid_campaign.pk, "bonuses"]), query
    ).content.decode()
    assert approvals.splitlines()[0] == "participant_id,decision,reason"
    assert f'{PIDS["bob"]},reject,"Failed 2 of 2 attention checks"' in approvals
    assert bonuses and all(BONUS_LINE.match(line) for line in bonuses.splitlines())
    # The page shows exactly what the downloads hold.
    assert page.context["approvals"] == approvals and page.context["bonuses"] == bonuses
    assert "under 12.00" in page.text
    bad = researcher_client.get(url, {**query, "reward": "-1"})
    assert bad.status_code == 400 and "reward" in bad.text.lower()
    assert (
        researcher_client.get(
            reverse("campaign-payment-file", args=[paid_campaign.pk, "other"])
        ).status_code
        == 404
    )


def test_annotators_cannot_see_payments(paid_campaign, client):
    client.force_login(make_annotator("eve"))
    assert client.get(reverse("campaign-payment", args=[paid_campaign.pk])).status_code == 403
