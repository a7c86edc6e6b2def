"""The annotator quality page's crowd model: each annotator's estimated skill and confusion
matrix beside the other evidence (page and CSV), machine judges joining the model (the page
names them), and every model's accuracy against the adjudicated reference."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.crowd.workers import worker_models
from annotation.models import CampaignItem
from annotation.review.campaigns import create_review_campaign
from annotation.review.decisions import chosen_label, decide
from annotation.review.selection import QueueChoice
from crux_app.models import Judgment
from tests.crux_app.factories import make_judge

from .test_review_annotator_quality import labelled  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def test_skills_and_confusions_single_out_the_dissenter(labelled):  # noqa: F811
    campaign, *_ = labelled
    # ann and bob rate every item 2; @cat rates 4 except on the first item.
    models = worker_models(campaign, "majority")
    n = CampaignItem.objects.filter(campaign=campaign, is_control=False).count()
    skill = {name: m.skill for name, m in models.people.items()}
    # Majority: the first item is 2 for sure; the others 2 with posterior 2/3 (4 with 1/3).
    assert skill["ann"] == skill["bob"] == pytest.approx((2 / 3 * (n - 1) + 1) / n)
    assert skill["@cat"] == pytest.approx((1 / 3 * (n - 1) + 1) / n)
    # @cat's confusion: of the mass on a true 2 (2/3 per item, 1 on the first), the share
    # where @cat said 4.
    cat = models.people["@cat"].confusion
    assert cat[2][4] == pytest.approx((2 / 3 * (n - 1)) / (2 / 3 * (n - 1) + 1))
    assert cat[4][4] == pytest.approx(1.0)
    # Dawid-Skene also ranks the dissenter last.
    ds = worker_models(campaign, "dawid_skene").people
    assert ds["ann"].skill > ds["@cat"].skill
    assert models.machines == {} and models.methods == []
    assert models.extra()["@cat"]["model_confusion"].startswith("2: 2 ")


def test_page_and_csv_show_the_model_columns(labelled, researcher_client):  # noqa: F811
    campaign, *_ = labelled
    url = reverse("annotator-quality", args=[campaign.pk])
    page = researcher_client.get(url, {"method": "majority", "sort": "model_skill"})
    assert page.status_code == 200
    assert [r["annotator"] for r in page.context["records"]][0] == "@cat"
    assert "Model skill" in page.text and "Model confusion (true → given)" in page.text
    assert "machine judges in the model: none" in page.text
    # The sort links keep the chosen model.
    assert "method=majority" in page.text
    response = researcher_client.get(
        reverse("annotator-quality-csv", args=[campaign.pk]), {"method": "wawa"}
    )
    rows = {r["annotator"]: r for r in csv.DictReader(io.StringIO(response.content.decode()))}
    assert float(rows["ann"]["model_skill"]) > float(rows["'@cat"]["model_skill"])
    assert rows["'@cat"]["model_confusion"]
    assert researcher_client.get(url, {"method": "vote"}).status_code == 400


def test_machine_judges_join_the_model(labelled, researcher_client):  # noqa: F811
    campaign, *_ = labelled
    gpt = make_judge("gpt")
    items = CampaignItem.objects.filter(campaign=campaign, is_control=False, is_gold=False)
    Judgment.objects.bulk_create(
        Judgment(judge=gpt, topic_id=i.topic_id, subquestion_id=i.subquestion_id,
                 passage_id=i.passage_id, task="passage_rating", rating=4)
        for i in items
    )  # fmt: skip
    url = reverse("annotator-quality", args=[campaign.pk])
    page = researcher_client.get(url, {"method": "majority", "machines": ["gpt"]})
    assert page.status_code == 200
    assert "machine judges in the model: gpt (skill" in page.text
    models = page.context["models"]
    assert set(models.machines) == {"gpt"} and "gpt" not in models.people
    assert researcher_client.get(url, {"machines": ["nobody"]}).status_code == 400


def test_every_model_against_the_adjudicated_reference(labelled, researcher):  # noqa: F811
    campaign, *_ = labelled
    assert worker_models(campaign, "majority", compare=True).methods == []
    review = create_review_campaign(campaign.collection, "Quality", QueueChoice())
    for item in review.items.all():  # the reviewer sides with @cat's 4
        letter = "AB"[[c["label"] for c in item.candidates].index(4)]
        label, option = chosen_label(item, letter, "")
        decide(item, researcher, label, option)
    methods = {m.method: m for m in worker_models(campaign, "majority", compare=True).methods}
    assert set(methods) == {
        "majority", "wawa", "dawid_skene", "one_coin_dawid_skene", "glad", "mace"
    }  # fmt: skip
    n = review.items.count()
    # Two people say 2 against one 4 on every reviewed item: majority is never right.
    assert (methods["majority"].vs_reference.hits, methods["majority"].vs_reference.n) == (0, n)
