"""Accounts and counts: usernames pass Django's rules on every path that creates one, a Prolific
link is bound to its participant, study and session and never silently replaces another
logged-in account, and the campaign form and setup refuse absurd counts."""

from io import StringIO

import pytest
from django.contrib.auth import SESSION_KEY, get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from annotation.campaigns import setup as campaign_setup
from annotation.campaigns.forms import CampaignForm
from annotation.campaigns.setup import SelectionOptions
from annotation.models import AnnotatorProfile, Campaign
from annotation.queue.selection import SelectionError
from annotation.task_types.names import PASSAGE_RATING
from crux_app.roles import RESEARCHER, add_role
from tests.annotation.campaign_data import make_campaign, report_collection

pytestmark = pytest.mark.django_db
User = get_user_model()

XSS_NAME = 'secX"><img src=x onerror=alert(30)>'
PID, STUDY, SESSION = "5f1a2b3c4d5e6f7a8b9c0d1e", "60aa0b0c0d0e0f1011121314", "70bb1c2d3e4f5a6b"
SESSION += "7c8d9e0f"
PARAMS = {"PROLIFIC_PID": PID, "STUDY_ID": STUDY, "SESSION_ID": SESSION}


def prolific_campaign(study: str = STUDY, **settings):
    return make_campaign(
        overlap=1,
        prolific_enabled=True,
        prolific_completion_code="C1X2Y3Z4",
        prolific_study_id=study,
        **settings,
    )


def arrival(campaign) -> str:
    return reverse("annotation-prolific", args=[campaign.slug])


def session_user(client: Client) -> int | None:
    value = client.session.get(SESSION_KEY)
    return int(value) if value is not None else None


# --- Usernames -------------------------------------------------------------------------------


@pytest.mark.parametrize("username", [XSS_NAME, "a b", "x" * 151, "semi;colon", ""])
def test_the_invite_form_refuses_an_invalid_username(researcher_client, username):
    campaign = make_campaign()
    before = set(User.objects.values_list("username", flat=True))
    response = researcher_client.post(
        reverse("campaign-invite", args=[campaign.pk]),
        {"username": username, "password": "long-enough-1"},
        follow=True,
    )
    html = response.content.decode()
    assert "username:" in html and "<img src=x" not in html
    assert set(User.objects.values_list("username", flat=True)) == before
    assert not campaign.invited.exists()


def test_the_invite_form_keeps_the_prolific_prefix_for_participants(researcher_client):
    campaign = make_campaign()
    response = researcher_client.post(
        reverse("campaign-invite", args=[campaign.pk]),
        {"username": f"prolific-{PID}", "password": "long-enough-1"},
        follow=True,
    )
    assert "kept for Prolific participants" in response.content.decode()
    assert not User.objects.filter(username__startswith="prolific-").exists()


def test_the_invite_form_still_takes_a_valid_name(researcher_client):
    campaign = make_campaign()
    researcher_client.post(
        reverse("campaign-invite", args=[campaign.pk]),
        {"username": "anna.m+lab@uni-x_1", "password": "long-enough-1"},
    )
    assert campaign.invited.get().username == "anna.m+lab@uni-x_1"


@pytest.mark.parametrize("username", [XSS_NAME, "x" * 151, "tab\tname"])
def test_create_researcher_refuses_an_invalid_username(username):
    with pytest.raises(CommandError, match="username"):
        call_command("create_researcher", username, "--password", "long-enough-1")
    assert not User.objects.exists()


def test_create_researcher_takes_a_valid_username():
    out = StringIO()
    call_command("create_researcher", "rita.b", "--password", "long-enough-1", stdout=out)
    assert "researcher rita.b: created" in out.getvalue()


@pytest.mark.parametrize(
    "params",
    [
        {**PARAMS, "PROLIFIC_PID": "z" * 24},  # 24 characters, not hexadecimal
        {**PARAMS, "PROLIFIC_PID": PID + "0"},
        {**PARAMS, "STUDY_ID": "st1"},
        {**PARAMS, "SESSION_ID": "se1"},
        {**PARAMS, "PROLIFIC_PID": 'x"><img src=x onerror=alert(30)>'},
    ],
)
def test_a_prolific_link_with_ids_that_are_not_prolific_ids_is_a_400(client, params):
    campaign = prolific_campaign()
    response = client.get(arrival(campaign), params)
    assert response.status_code == 400 and "is not a Prolific id" in response.content.decode()
    assert not User.objects.exists() and session_user(client) is None


# --- Prolific: binding, collisions, sessions -------------------------------------------------


def test_a_participant_id_colliding_with_a_username_gets_its_own_account(client):
    campaign = prolific_campaign()
    rita = User.objects.create_user(f"prolific-{PID}", password="research-pass-1")
    add_role(rita, RESEARCHER)
    response = client.get(arrival(campaign), PARAMS)
    assert response.status_code == 302
    participant = User.objects.get(pk=session_user(client))
    assert participant.pk != rita.pk and participant.username == f"prolific-{PID}-2"
    assert participant.annotator_profile.source == AnnotatorProfile.Source.PROLIFIC
    assert not campaign.invited.filter(pk=rita.pk).exists()
    assert not AnnotatorProfile.objects.filter(user=rita).exists()


def test_a_link_never_replaces_a_logged_in_researcher_without_asking(researcher_client):
    campaign = prolific_campaign()
    rita = User.objects.get(username="rita")
    response = researcher_client.get(arrival(campaign), PARAMS)
    html = response.content.decode()
    assert response.status_code == 200
    assert "You are logged in as <strong>rita</strong>" in html
    assert "Continue as the Prolific participant?" in html and 'method="post"' in html
    assert session_user(researcher_client) == rita.pk
    assert not AnnotatorProfile.objects.exists()  # nothing created before the answer
    # Confirming (a POST) switches to the participant.
    response = researcher_client.post(arrival(campaign), PARAMS)
    assert response.url == reverse("annotation-workspace", args=[campaign.slug])
    participant = User.objects.get(username=f"prolific-{PID}")
    assert session_user(researcher_client) == participant.pk


def test_the_confirmation_needs_a_csrf_token():
    campaign = prolific_campaign()
    browser = Client(enforce_csrf_checks=True)
    assert browser.post(arrival(campaign), PARAMS).status_code == 403
    assert not User.objects.exists()


def test_the_participant_itself_is_not_asked_again(client):
    campaign = prolific_campaign()
    client.get(arrival(campaign), PARAMS)
    participant = session_user(client)
    response = client.get(arrival(campaign), PARAMS)
    assert response.status_code == 302 and session_user(client) == participant


def test_the_account_is_bound_to_its_study_and_session(client):
    campaign = prolific_campaign()
    client.get(arrival(campaign), PARAMS)
    first = User.objects.get(username=f"prolific-{PID}")
    # The same participant and study in another session: refused, not logged in.
    stranger = Client()
    response = stranger.get(arrival(campaign), {**PARAMS, "SESSION_ID": "a" * 24})
    assert response.status_code == 403 and "another session" in response.content.decode()
    assert session_user(stranger) is None
    assert first.annotator_profile.prolific_session_id == SESSION
    # The same three ids resume the account in the browser they logged in.
    client.get(arrival(campaign), PARAMS)
    assert session_user(client) == first.pk
    # Another study (another campaign's) is another account.
    study_b = prolific_campaign("b" * 24, collection=campaign.collection, name="Study B")
    other = Client()
    other.get(arrival(study_b), {**PARAMS, "STUDY_ID": "b" * 24, "SESSION_ID": "c" * 24})
    assert session_user(other) not in (None, first.pk)
    assert User.objects.get(pk=session_user(other)).username == f"prolific-{PID}-2"


def test_ids_are_read_case_insensitively(client):
    campaign = prolific_campaign()
    client.get(arrival(campaign), PARAMS)
    participant = session_user(client)
    upper = {name: value.upper() for name, value in PARAMS.items()}
    assert client.get(arrival(campaign), upper).status_code == 302
    assert session_user(client) == participant
    assert AnnotatorProfile.objects.count() == 1


# --- Counts ----------------------------------------------------------------------------------


def form_data(collection, **changes):
    return {
        "name": "Floods pilot",
        "collection": collection.pk,
        "task_type": PASSAGE_RATING,
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
        **changes,
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("attention_count", 20000),
        ("attention_count", 101),
        ("gold_count", 1001),
        ("overlap", 21),
        ("per_annotator_cap", 200_001),
        ("sample_size", 200_001),
        ("seed", 2**31),
        ("reservation_seconds", 8 * 24 * 3600),
        ("reservation_seconds", 5),
        ("control_interval", 1001),
        ("qc_min_answers", 1001),
        ("gold_tolerance", 6),
    ],
)
def test_every_count_of_the_campaign_form_is_bounded(researcher_client, field, value):
    collection = report_collection()
    form = CampaignForm(form_data(collection, **{field: value}))
    assert not form.is_valid() and field in form.errors, form.errors
    assert 'max="' in str(form[field])
    response = researcher_client.post(
        reverse("campaign-create"), form_data(collection, **{field: value})
    )
    assert response.status_code == 400 and not Campaign.objects.exists()


def test_the_form_still_takes_counts_within_the_bounds():
    collection = report_collection()
    form = CampaignForm(
        form_data(collection, attention_count=100, overlap=20, per_annotator_cap=10)
    )
    assert form.is_valid(), form.errors


def test_the_campaign_setup_refuses_absurd_counts_whoever_calls_it():
    collection = report_collection()
    for options, settings, field in (
        (SelectionOptions(mode="every", attention_count=20000), {}, "attention_count"),
        (SelectionOptions(mode="every", gold_count=10**6), {}, "gold_count"),
        (SelectionOptions(mode="every"), {"overlap": 500}, "overlap"),
    ):
        campaign = Campaign(name="x", collection=collection, task_type=PASSAGE_RATING, **settings)
        with pytest.raises(SelectionError) as caught:
            campaign_setup.create_campaign(campaign, options)
        assert caught.value.field == field
    assert not Campaign.objects.exists()


def test_the_campaign_setup_refuses_a_selection_beyond_the_total(monkeypatch):
    collection = report_collection()
    monkeypatch.setattr(campaign_setup, "MAX_ITEMS", 3)
    campaign = Campaign(name="x", collection=collection, task_type=PASSAGE_RATING)
    with pytest.raises(SelectionError, match="a campaign holds at most 3"):
        campaign_setup.create_campaign(campaign, SelectionOptions(mode="every"))
    assert not Campaign.objects.exists()
