"""A gold CSV the csv module cannot read (a field over its 131,072-character limit, a stray
carriage return) is a 400 naming the file and line, and nothing of it is applied."""

import csv

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.campaigns.setup import GoldUploadError, apply_gold_csv

from .campaign_data import make_campaign

pytestmark = pytest.mark.django_db


def _gold_items(campaign) -> int:
    return campaign.items.filter(is_gold=True).count()


def test_a_field_over_the_csv_limit_is_a_400_naming_the_line(researcher_client):
    campaign = make_campaign()
    item = campaign.items.order_by("id").first()
    huge = "x" * (csv.field_size_limit() + 1)
    text = f"item,answer\n{item.pk},5\n{item.pk},{huge}\n"
    response = researcher_client.post(
        reverse("campaign-gold", args=[campaign.pk]),
        {"file": SimpleUploadedFile("gold.csv", text.encode())},
    )
    assert response.status_code == 400
    assert "gold.csv, line 3: a field is longer than 131,072 characters" in (
        response.content.decode()
    )
    assert _gold_items(campaign) == 0  # the good first line is not applied either
    assert csv.field_size_limit() == 131_072  # the process-wide limit is left alone


def test_an_unreadable_csv_line_is_named():
    campaign = make_campaign()
    item = campaign.items.order_by("id").first()
    with pytest.raises(GoldUploadError, match=r"^g\.csv, line 3: not readable as CSV \(new-line"):
        apply_gold_csv(campaign, f"item,answer\n{item.pk},5\n{item.pk},5\rx\n", "g.csv")
    assert _gold_items(campaign) == 0


def test_a_refused_gold_file_is_a_400_with_its_reason(researcher_client):
    campaign = make_campaign()
    url = reverse("campaign-gold", args=[campaign.pk])
    response = researcher_client.post(url, {"file": SimpleUploadedFile("g.csv", b"id,value\n")})
    assert response.status_code == 400
    assert "g.csv: missing column(s) answer, item" in response.content.decode()
    assert researcher_client.post(url, {}).status_code == 400
