"""Prolific arrival: the study link creates or resumes a passwordless annotator."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import AnnotatorProfile, Assignment
from crux_app.roles import ANNOTATOR, has_role

from .campaign_data import make_annotator, make_campaign

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
STUDY, SESSION = "60aa0b0c0d0e0f1011121314", "70bb1c2d3e4f5a6b7c8d9e0f"
PARAMS = {"PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e", "STUDY_ID": STUDY, "SESSION_ID": SESSION}


def prolific_campaign(**settings):
    settings = {
        "prolific_enabled": True,
        "prolific_completion_code": "C1X2Y3Z4",
        "prolific_redirect_url": "https://app.prolific.com/submissions/complete?cc=C1X2Y3Z4",
        "prolific_study_id": STUDY,
        **settings,
    }
    return make_campaign(overlap=1, **settings)


def arrival(campaign) -> str:
    return reverse("annotation-prolific", args=[campaign.slug])


def test_arrival_creates_a_logged_in_annotator_without_password(client):
    campaign = prolific_campaign()
    response = client.get(arrival(campaign), PARAMS)
    assert response.url == reverse("annotation-workspace", args=[campaign.slug])
    user = get_user_model().objects.get(username="prolific-5f1a2b3c4d5e6f7a8b9c0d1e")
    assert not user.has_usable_password() and has_role(user, ANNOTATOR)
    profile = user.annotator_profile
    assert (profile.source, profile.prolific_study_id, profile.prolific_session_id) == (
        "prolific",
        STUDY,
        SESSION,
    )
    assert client.get(response.url).status_code == 200  # logged in, invited
    assert Assignment.objects.filter(annotator=user).count() == 1


def test_a_second_arrival_in_the_same_browser_resumes_the_same_annotator_and_item(client):
    campaign = prolific_campaign()
    client.get(arrival(campaign), PARAMS)
    client.get(reverse("annotation-workspace", args=[campaign.slug]))
    held = Assignment.objects.get()
    response = client.get(arrival(campaign), PARAMS)
    assert response.url == reverse("annotation-workspace", args=[campaign.slug])
    html = client.get(response.url).content
    assert f'data-assignment="{held.pk}"'.encode() in html
    assert AnnotatorProfile.objects.get().prolific_session_id == SESSION
    assert get_user_model().objects.filter(username__startswith="prolific-").count() == 1


def test_the_same_link_in_another_browser_is_refused(client):
    campaign = prolific_campaign()
    client.get(arrival(campaign), PARAMS)
    other_browser = Client()
    response = other_browser.get(arrival(campaign), PARAMS)
    assert response.status_code == 403
    assert "already used to start the study in another browser" in response.content.decode()
    workspace = other_browser.get(reverse("annotation-workspace", args=[campaign.slug]))
    assert workspace.status_code == 302 and "/login/" in workspace.url  # not logged in
    assert get_user_model().objects.filter(username__startswith="prolific-").count() == 1


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"STUDY_ID": "s", "SESSION_ID": "x"}, "the link lacks PROLIFIC_PID"),
        ({**PARAMS, "STUDY_ID": "bad id!"}, "STUDY_ID &#x27;bad id!&#x27; is not a Prolific id"),
        ({**PARAMS, "SESSION_ID": "se1"}, "SESSION_ID &#x27;se1&#x27; is not a Prolific id"),
        ({**PARAMS, "PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e0"}, "is not a Prolific id"),
    ],
)
def test_a_broken_link_is_a_clear_400(client, params, message):
    campaign = prolific_campaign()
    response = client.get(arrival(campaign), params)
    assert response.status_code == 400 and message in response.content.decode()
    assert not AnnotatorProfile.objects.exists()


def test_campaigns_without_prolific_do_not_take_arrivals(client):
    campaign = make_campaign(overlap=1)
    assert client.get(arrival(campaign), PARAMS).status_code == 404


def test_finishing_shows_the_completion_code_and_the_redirect(client):
    campaign = prolific_campaign(per_annotator_cap=1)
    client.get(arrival(campaign), PARAMS)
    client.get(reverse("annotation-workspace", args=[campaign.slug]))
    held = Assignment.objects.get()
    submit = reverse("annotation-submit", args=[campaign.slug, held.pk])
    client.post(submit, {"rating": "3"}, **HTMX)
    html = client.get(reverse("annotation-next", args=[campaign.slug]), **HTMX).content.decode()
    assert '<strong id="completion-code">C1X2Y3Z4</strong>' in html
    assert 'data-redirect-url="https://app.prolific.com/submissions/complete?cc=C1X2Y3Z4"' in html


def test_invited_annotators_do_not_get_the_prolific_code(client):
    anna = make_annotator("anna")
    campaign = prolific_campaign(per_annotator_cap=1, annotators=[anna])
    client.force_login(anna)
    client.get(reverse("annotation-workspace", args=[campaign.slug]))
    held = Assignment.objects.get()
    client.post(
        reverse("annotation-submit", args=[campaign.slug, held.pk]), {"rating": "3"}, **HTMX
    )
    html = client.get(reverse("annotation-next", args=[campaign.slug]), **HTMX).content.decode()
    assert "All done" in html and "C1X2Y3Z4" not in html
