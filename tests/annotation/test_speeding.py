"""Speeding in quality control (issue 23): a median time per item under the task type's floor
is flagged on the campaign page and in the annotators export, per annotator."""

import io

import pandas as pd
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from annotation.quality.checks import is_speeding, speeding_floor_ms
from annotation.quality.progress import annotator_rows
from annotation.queue import queue
from annotation.task_types.names import ANSWER_EQUIVALENCE, PASSAGE_RATING, REPORT_COVERAGE
from annotation.workspace.submission import submit
from crux_app.settings import env_seconds

from .campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db


def answer_items(campaign, user, times_ms: list[int]) -> None:
    for ms in times_ms:
        submit(queue.next_item(campaign, user).assignment, {"rating": 3}, ms)


def test_every_task_type_has_a_floor_and_the_setting_changes_it(settings):
    assert speeding_floor_ms(PASSAGE_RATING) == 3000
    assert speeding_floor_ms(REPORT_COVERAGE) > speeding_floor_ms(ANSWER_EQUIVALENCE) > 0
    settings.ANNOTATION_SPEEDING_FLOOR_SECONDS = {PASSAGE_RATING: 0.25}
    assert speeding_floor_ms(PASSAGE_RATING) == 250
    assert speeding_floor_ms(REPORT_COVERAGE) is None  # no floor, nothing flagged


def test_the_floor_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("SPEED_TEST", "passage_rating=4, report_coverage = 12.5")
    assert env_seconds("SPEED_TEST") == {"passage_rating": 4.0, "report_coverage": 12.5}
    for garbage in ("passage_rating", "passage_rating=fast", "=3", "passage_rating=-1",
                    "passage_rating=nan", "passage_rating=inf"):  # fmt: skip
        monkeypatch.setenv("SPEED_TEST", garbage)
        with pytest.raises(ImproperlyConfigured, match="SPEED_TEST"):
            env_seconds("SPEED_TEST")


def test_a_median_under_the_floor_is_speeding_after_the_qc_minimum(settings):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna], qc_min_answers=3)
    assert is_speeding(campaign, 300, 3)
    assert not is_speeding(campaign, 300, 2)  # too few answers to judge
    assert not is_speeding(campaign, 3000, 10)  # at the floor is fine
    assert not is_speeding(campaign, None, 0)
    settings.ANNOTATION_SPEEDING_FLOOR_SECONDS = {PASSAGE_RATING: 0.2}
    assert not is_speeding(campaign, 300, 3)


def test_the_campaign_page_and_export_flag_the_speeding_annotator(researcher_client):
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(PASSAGE_RATING, overlap=2, annotators=[anna, ben])
    answer_items(campaign, anna, [300, 250, 400])  # median 0.3 s
    answer_items(campaign, ben, [8000, 9000, 7000])
    rows = {r.username: r for r in annotator_rows(campaign)}
    assert rows["anna"].speeding and not rows["ben"].speeding
    assert not rows["anna"].quality.flagged and not rows["anna"].blocked  # a warning only

    response = researcher_client.get(reverse("campaign-detail", args=[campaign.pk]))
    html = response.content.decode()
    qc = {
        name: html.split(f'data-annotator="{name}"')[1]
        .split('<td class="qc">')[1]
        .split("</td>")[0]
        for name in ("anna", "ben")
    }
    assert "speeding" in qc["anna"] and "ok" not in qc["anna"]
    assert qc["ben"].strip() == "ok"
    assert "median time per item under 3.0 s" in html

    export = researcher_client.get(reverse("campaign-export", args=[campaign.pk, "annotators"]))
    frame = pd.read_csv(io.StringIO(export.content.decode())).set_index("annotator")
    assert frame.loc["anna", "speeding"] and not frame.loc["ben", "speeding"]
    assert frame.loc["anna", "median_time_ms"] == 300
    assert (frame["speeding_floor_ms"] == 3000).all()
