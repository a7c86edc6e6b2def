"""A Prolific link is taken only for the campaign's own study, within its places and the
per-minute cap, and only once: afterwards only the browser session it logged in keeps it."""

from datetime import timedelta
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.accounts import ArrivalRefused, parse_prolific_params, prolific_arrival
from annotation.campaigns.forms import CampaignForm
from annotation.models import AnnotatorProfile, Campaign
from annotation.prolific.admission import ProlificPlaces, places
from crux_app.roles import ANNOTATOR, add_role

from .campaign_data import make_campaign

pytestmark = pytest.mark.django_db
User = get_user_model()
STUDY, OTHER_STUDY = "60aa0b0c0d0e0f1011121314", "61bb0b0c0d0e0f1011121314"


def pid(n: int) -> str:
    return f"{n:024x}"


def link(n: int, study: str = STUDY, session: str | None = None) -> dict[str, str]:
    return {"PROLIFIC_PID": pid(n), "STUDY_ID": study, "SESSION_ID": session or pid(1000 + n)}


def prolific_campaign(**settings) -> Campaign:
    settings = {
        "prolific_enabled": True,
        "prolific_completion_code": "C1X2Y3Z4",
        "prolific_study_id": STUDY,
        **settings,
    }
    return make_campaign(overlap=1, **settings)


def arrive(campaign: Campaign, params: dict[str, str], browser: Client | None = None):
    browser = browser or Client()
    return browser.get(reverse("annotation-prolific", args=[campaign.slug]), params), browser


def logged_in(browser: Client) -> bool:
    return SESSION_KEY in browser.session


def participants() -> int:
    return AnnotatorProfile.objects.filter(source=AnnotatorProfile.Source.PROLIFIC).count()


# --- The campaign's study ---------------------------------------------------------------------


def test_a_link_of_another_study_is_refused_with_a_clear_page():
    campaign = prolific_campaign()
    response, browser = arrive(campaign, link(1, study=OTHER_STUDY))
    assert response.status_code == 403
    assert "STUDY_ID is not the study this campaign runs" in response.content.decode()
    assert campaign.name in response.content.decode()
    assert participants() == 0 and not User.objects.exists() and not logged_in(browser)


def test_a_campaign_without_its_study_id_takes_no_arrivals():
    campaign = prolific_campaign(prolific_study_id="")
    response, browser = arrive(campaign, link(1))
    assert response.status_code == 403
    assert "not bound to a Prolific study yet" in response.content.decode()
    assert participants() == 0 and not logged_in(browser)


def test_the_study_id_is_compared_case_insensitively():
    campaign = prolific_campaign()
    response, _ = arrive(campaign, link(1, study=STUDY.upper()))
    assert response.status_code == 302 and participants() == 1


# --- Caps on new participants -----------------------------------------------------------------


def test_new_participants_per_minute_are_capped(settings):
    settings.PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE = 2
    campaign = prolific_campaign(prolific_places=100)
    assert [arrive(campaign, link(n))[0].status_code for n in range(3)] == [302, 302, 429]
    third = arrive(campaign, link(2))[0]
    assert "too many participants are starting this study at once" in third.content.decode()
    assert participants() == 2
    # A minute later the next one is taken.
    AnnotatorProfile.objects.update(created_at=timezone.now() - timedelta(seconds=61))
    assert arrive(campaign, link(2))[0].status_code == 302 and participants() == 3


def test_new_participants_are_capped_by_the_campaigns_places():
    campaign = prolific_campaign(prolific_places=2)
    assert [arrive(campaign, link(n))[0].status_code for n in range(3)] == [302, 302, 403]
    assert "all places of this study are taken" in arrive(campaign, link(2))[0].content.decode()
    assert participants() == 2
    assert places(campaign) == ProlificPlaces(total=2, taken=2, explicit=True)


def test_without_explicit_places_the_campaign_takes_items_times_overlap():
    campaign = prolific_campaign()
    total = campaign.items.regular().count() * campaign.overlap
    assert places(campaign).total == total and not places(campaign).explicit
    statuses = [arrive(campaign, link(n))[0].status_code for n in range(total + 1)]
    assert statuses == [302] * total + [403]
    assert participants() == total


def test_participants_already_in_do_not_count_as_new(settings):
    settings.PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE = 1
    campaign = prolific_campaign(prolific_places=1)
    response, browser = arrive(campaign, link(1))
    assert response.status_code == 302
    # The full campaign still lets its participant back in, in the same browser.
    assert arrive(campaign, link(1), browser)[0].status_code == 302


# --- One-time entry, bound to the browser session ---------------------------------------------


def test_the_link_works_once_then_only_in_the_browser_it_logged_in():
    campaign = prolific_campaign()
    first, browser = arrive(campaign, link(1))
    assert first.status_code == 302 and logged_in(browser)
    user = User.objects.get(pk=browser.session[SESSION_KEY])
    # Replayed elsewhere: refused, nobody logged in there.
    replay, stranger = arrive(campaign, link(1))
    assert replay.status_code == 403 and not logged_in(stranger)
    assert "another browser" in replay.content.decode()
    # The participant's own browser keeps working, as the same account.
    again = arrive(campaign, link(1), browser)[0]
    assert again.status_code == 302 and int(browser.session[SESSION_KEY]) == user.pk
    assert participants() == 1


def test_after_logging_out_the_link_is_refused_too():
    campaign = prolific_campaign()
    _, browser = arrive(campaign, link(1))
    browser.post(reverse("logout"))
    response = arrive(campaign, link(1), browser)[0]
    assert response.status_code == 403 and not logged_in(browser)


def test_a_link_used_in_a_logged_in_researchers_browser_is_not_offered_a_second_time(
    researcher_client,
):
    campaign = prolific_campaign()
    arrive(campaign, link(1))
    response = arrive(campaign, link(1), researcher_client)[0]
    assert response.status_code == 403  # no "continue as the participant?" page
    assert "Continue as the Prolific participant?" not in response.content.decode()


def test_an_account_from_before_one_time_entry_is_bound_at_its_next_arrival():
    campaign = prolific_campaign()
    user = User.objects.create_user(f"prolific-{pid(1)}")
    add_role(user, ANNOTATOR)
    params = link(1)
    AnnotatorProfile.objects.create(
        user=user,
        source=AnnotatorProfile.Source.PROLIFIC,
        prolific_pid=f"{pid(1)}:{STUDY}",
        prolific_study_id=STUDY,
        prolific_session_id=params["SESSION_ID"],
    )
    response, browser = arrive(campaign, params)
    assert response.status_code == 302 and int(browser.session[SESSION_KEY]) == user.pk
    assert AnnotatorProfile.objects.get(user=user).prolific_entered_at is not None
    assert arrive(campaign, params)[0].status_code == 403


def test_the_service_refuses_a_second_entry_but_not_the_participant_itself():
    campaign = prolific_campaign()
    params = parse_prolific_params(link(1))
    first = prolific_arrival(campaign, params, AnonymousUser())
    with pytest.raises(ArrivalRefused, match="another browser"):
        prolific_arrival(campaign, params, AnonymousUser())
    assert prolific_arrival(campaign, params, first).pk == first.pk
    assert participants() == 1


# --- The researcher's side ----------------------------------------------------------------------


def test_the_campaign_page_binds_the_study_and_sets_places(researcher_client):
    campaign = prolific_campaign(prolific_study_id="")
    page = researcher_client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "Not bound to a Prolific study" in page and 'id="prolific-study-form"' in page
    url = reverse("campaign-prolific", args=[campaign.pk])
    response = researcher_client.post(
        url, {"prolific_study_id": f" {STUDY.upper()} ", "prolific_places": "7"}
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.prolific_study_id, campaign.prolific_places) == (STUDY, 7)
    page = researcher_client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "<b>0 of 7</b> places taken (set here)" in page


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"prolific_study_id": "not-a-study"}, "24 hexadecimal characters"),
        ({"prolific_study_id": STUDY, "prolific_places": "0"}, "prolific_places"),
        ({"prolific_study_id": STUDY, "prolific_places": "10" * 20}, "prolific_places"),
        ({"prolific_study_id": OTHER_STUDY}, "Another campaign already runs this Prolific study"),
    ],
)
def test_bad_prolific_settings_are_a_400_and_change_nothing(researcher_client, data, message):
    campaign = prolific_campaign(prolific_study_id="")
    prolific_campaign(collection=campaign.collection, name="Other", prolific_study_id=OTHER_STUDY)
    response = researcher_client.post(reverse("campaign-prolific", args=[campaign.pk]), data)
    assert response.status_code == 400 and message in response.content.decode()
    campaign.refresh_from_db()
    assert (campaign.prolific_study_id, campaign.prolific_places) == ("", None)


def test_only_researchers_bind_a_study(client, annotator):
    campaign = prolific_campaign(prolific_study_id="")
    client.force_login(annotator)
    response = client.post(
        reverse("campaign-prolific", args=[campaign.pk]), {"prolific_study_id": STUDY}
    )
    assert response.status_code == 403
    campaign.refresh_from_db()
    assert campaign.prolific_study_id == ""


def test_the_campaign_form_takes_the_study_id():
    form = CampaignForm(data={"prolific_study_id": "xyz"})
    form.is_valid()
    assert "24 hexadecimal characters" in str(form.errors["prolific_study_id"])


def test_the_migration_binds_a_campaign_whose_participants_came_from_one_study():
    migration = import_module("annotation.migrations.0003_prolific_binding")
    one_study = prolific_campaign(prolific_study_id="")
    mixed = prolific_campaign(collection=one_study.collection, name="Mixed", prolific_study_id="")
    for n, (campaign, study) in enumerate(
        [(one_study, STUDY), (one_study, STUDY), (mixed, STUDY), (mixed, OTHER_STUDY)]
    ):
        user = User.objects.create_user(f"prolific-{pid(n)}")
        AnnotatorProfile.objects.create(
            user=user, source="prolific", prolific_pid=pid(n), prolific_study_id=study
        )
        campaign.invited.add(user)
    migration.bind_campaigns_to_their_study(django_apps, None)
    one_study.refresh_from_db()
    mixed.refresh_from_db()
    assert (one_study.prolific_study_id, mixed.prolific_study_id) == (STUDY, "")
