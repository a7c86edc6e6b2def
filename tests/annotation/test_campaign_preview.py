"""The new-campaign form: fieldsets, and the live item count (``campaign-preview``) that reads
the form's fields through a bounded form: the count the campaign will have, warnings, and a 400
naming the field for anything out of bounds or of the wrong type."""

import re

import pytest
from django.urls import reverse

from annotation.campaigns.setup import MAX_ITEMS, SelectionOptions
from annotation.task_types.names import ANSWER_EQUIVALENCE, PASSAGE_RATING

from .campaign_data import make_annotator, make_campaign, report_collection

pytestmark = pytest.mark.django_db
PREVIEW = "campaign-preview"


def preview(client, **params):
    return client.get(reverse(PREVIEW), params, HTTP_HX_REQUEST="true")


def items_shown(response) -> int:
    match = re.search(r'id="preview-items">(\d+)<', response.content.decode())
    assert match, response.content.decode()
    return int(match[1])


def base(collection, **fields):
    return {
        "collection": collection.pk,
        "task_type": PASSAGE_RATING,
        "selection_mode": "every",
        "seed": 0,
        "tau": 3,
        "overlap": 2,
        "gold_count": 0,
        "attention_count": 0,
        **fields,
    }


@pytest.mark.parametrize(
    ("fields", "options"),
    [
        ({}, SelectionOptions(mode="every")),
        (
            {"selection_mode": "sample", "sample_size": 3, "seed": 7},
            SelectionOptions(mode="sample", sample_size=3, seed=7),
        ),
        ({"sample_size": 3}, SelectionOptions(mode="every", sample_size=3)),
    ],
)
def test_the_preview_counts_what_the_campaign_will_hold(researcher_client, fields, options):
    collection = report_collection()
    response = preview(researcher_client, **base(collection, **fields))
    assert response.status_code == 200
    shown = items_shown(response)
    campaign = make_campaign(collection=collection, options=options)
    assert shown == campaign.items.count() > 0


def test_the_preview_shows_labels_attention_checks_and_warnings(researcher_client):
    collection = report_collection()  # 8 items
    anna, ben = make_annotator("anna"), make_annotator("ben")
    fields = base(collection, attention_count=2, overlap=3, annotators=[anna.pk, ben.pk])
    html = preview(researcher_client, **fields).content.decode()
    assert "+ 2 attention checks" in html
    assert "24 labels needed at 3 per item" in html and "2 annotators invited" in html
    assert "but 2 annotators are invited" in html
    fields["overlap"] = 2
    assert "annotators are invited" not in preview(researcher_client, **fields).content.decode()
    fields["per_annotator_cap"] = 3
    html = preview(researcher_client, **fields).content.decode()
    assert "A cap of 3 items per annotator gives at most 6 labels" in html


def test_the_preview_explains_an_empty_selection_and_asks_for_a_collection(researcher_client):
    collection = report_collection()
    response = preview(researcher_client, **base(collection, task_type=ANSWER_EQUIVALENCE))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="preview-problem"' in html and "has no items for this task" in html
    response = preview(researcher_client, **base(collection, selection_mode="sample"))
    assert "give the number of items to sample" in response.content.decode()
    for missing in ("collection", "task_type"):
        response = preview(researcher_client, **{**base(collection), missing: ""})
        assert response.status_code == 200
        assert "Choose a collection and a task type" in response.content.decode()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("sample_size", str(MAX_ITEMS + 1)),
        ("sample_size", "0"),
        ("sample_size", "9" * 5000),
        ("sample_size", "²"),
        ("overlap", "0"),
        ("overlap", "21"),
        ("overlap", "abc"),
        ("overlap", ""),
        ("seed", "-1"),
        ("tau", "6"),
        ("attention_count", "101"),
        ("per_annotator_cap", "1.5"),
        ("collection", "abc"),
        ("collection", str(2**63)),
        ("collection", "999999"),
        ("task_type", "nonsense"),
        ("selection_mode", "\x00"),
        ("annotators", "abc"),
        ("crux_judge", "1\x00"),
    ],
)
def test_garbage_is_a_400_naming_the_field(researcher_client, field, value):
    fields = base(report_collection())
    fields[field] = value
    response = preview(researcher_client, **fields)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="preview-errors"' in html and f'<span class="mono">{field}</span>' in html


def test_the_preview_is_for_researchers_only(client):
    url = reverse(PREVIEW)
    assert client.get(url).status_code == 302  # to the login page
    client.force_login(make_annotator("anna"))
    assert client.get(url).status_code == 403


def test_the_form_groups_its_fields_and_marks_what_the_preview_reads(researcher_client):
    html = researcher_client.get(reverse("campaign-create")).content.decode()
    legends = re.findall(r"<legend>([^<]+)</legend>", html)
    assert legends == [
        "Campaign",
        "Which items",
        "Annotators and assignment",
        "Guidelines",
        "Post-editing (not blind)",
        "Quality control",
        "Crowd control",
        "Prolific",
    ]
    assert html.count('<fieldset class="form-group">') == len(legends)
    assert f'hx-get="{reverse(PREVIEW)}"' in html and "js/campaign_form.js" in html
    for name in ("collection", "task_type", "sample_size", "overlap", "attention_count"):
        assert re.search(rf'name="{name}"[^>]*data-preview', html), name
    assert not re.search(r'name="guidelines_md"[^>]*data-preview', html)
    assert 'name="assignment_policy"' in html
