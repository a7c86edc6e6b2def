"""The workspace through the Django client: items, submit, skip, drafts, isolation, CSRF."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment
from annotation.task_types.names import (
    ANSWER_EQUIVALENCE,
    FAILURE_CATEGORY,
    PASSAGE_RATING,
    REPORT_COVERAGE,
)
from crux_app.models import Judge
from tests.crux_app.factories import make_judge, rate_passages

from .campaign_data import make_annotator, make_campaign, report_collection

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def workspace(campaign) -> str:
    return reverse("annotation-workspace", args=[campaign.slug])


def item_url(name, assignment) -> str:
    return reverse(name, args=[assignment.campaign.slug, assignment.pk])


@pytest.mark.parametrize(
    ("task_type", "expected"),
    [
        (PASSAGE_RATING, ["What is aspect", "Passage ", "highly relevant, complete"]),
        (REPORT_COVERAGE, ["Floods hit the delta", 'name="answer_0"', 'name="answer_2"']),
        (ANSWER_EQUIVALENCE, ["Author 0", "Someone 0", 'name="equivalent"']),
        (FAILURE_CATEGORY, ["Semi-gold answer", "q0:0#1", "Distracting passage"]),
    ],
)
def test_workspace_shows_the_item_of_each_task(task_type, expected):
    anna = make_annotator("anna")
    campaign = make_campaign(task_type, annotators=[anna])
    response = client_for(anna).get(workspace(campaign))
    assert response.status_code == 200
    html = response.content.decode()
    for text in expected:
        assert text in html
    assert "js/workspace.js" in html and "<strong>carefully</strong>" in html
    assert Assignment.objects.filter(annotator=anna, state="reserved").count() == 1


def test_the_annotator_never_sees_llm_labels_or_other_annotators():
    collection = report_collection()
    llm = make_judge("secret-llm")
    topic = collection.topics.get()
    rate_passages(llm, topic, list(collection.passages.all()), rating=lambda pos, i: 5)
    anna, other = make_annotator("anna"), make_annotator("zebedee")
    campaign = make_campaign(PASSAGE_RATING, collection=collection, annotators=[anna, other])
    client_for(other).get(workspace(campaign))
    html = client_for(anna).get(workspace(campaign)).content.decode()
    assert "secret-llm" not in html and "zebedee" not in html


def test_submit_stores_the_answer_and_returns_the_progress_bar():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    client = client_for(anna)
    client.get(workspace(campaign))
    assignment = Assignment.objects.get(annotator=anna)
    data = {"rating": "2", "rationale": "", "time_spent_ms": "4321"}
    response = client.post(item_url("annotation-submit", assignment), data, **HTMX)
    assert response.status_code == 200
    assert 'hx-swap-oob="true"' in response.content.decode()
    assert ">1</span> / 8 done" in response.content.decode()
    assignment.refresh_from_db()
    assert (assignment.state, assignment.answer["rating"], assignment.time_spent_ms) == (
        "submitted",
        2,
        4321,
    )
    assert Judge.objects.get(user=anna).judgments.count() == 1


def test_an_invalid_answer_is_a_400_naming_the_field():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    client = client_for(anna)
    client.get(workspace(campaign))
    assignment = Assignment.objects.get(annotator=anna)
    response = client.post(item_url("annotation-submit", assignment), {"rating": "9"}, **HTMX)
    assert response.status_code == 400
    assert response.content.decode() == "rating: choose a rating from 0 to 5"
    assignment.refresh_from_db()
    assert assignment.state == "reserved"


def test_next_prefetch_skip_and_the_done_page():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    campaign.items.exclude(pk__in=list(campaign.items.values_list("pk", flat=True)[:2])).delete()
    client = client_for(anna)
    client.get(workspace(campaign))
    first = Assignment.objects.get(annotator=anna)
    prefetch = reverse("annotation-prefetch", args=[campaign.slug]) + f"?after={first.pk}"
    response = client.get(prefetch, **HTMX)
    second = Assignment.objects.exclude(pk=first.pk).get(annotator=anna)
    assert f'data-assignment="{second.pk}"' in response.content.decode()
    assert client.get(prefetch, **HTMX).status_code == 200  # the same reservation again
    assert Assignment.objects.filter(annotator=anna).count() == 2
    assert client.post(item_url("annotation-skip", first), **HTMX).status_code == 200
    first.refresh_from_db()
    assert first.state == "skipped"
    client.post(item_url("annotation-submit", second), {"rating": "1"}, **HTMX)
    nxt = client.get(reverse("annotation-next", args=[campaign.slug]), **HTMX)
    # The skipped item comes back once nothing else is left.
    assert f'data-assignment="{first.pk}"' in nxt.content.decode()
    client.post(item_url("annotation-submit", first), {"rating": "5"}, **HTMX)
    done = client.get(reverse("annotation-next", args=[campaign.slug]), **HTMX)
    assert "All done" in done.content.decode() and "completion code" not in done.content.decode()
    assert client.get(prefetch, **HTMX).status_code == 204


def test_the_cap_ends_the_work_with_a_message():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, per_annotator_cap=1, annotators=[anna])
    client = client_for(anna)
    client.get(workspace(campaign))
    first = Assignment.objects.get(annotator=anna)
    client.post(item_url("annotation-submit", first), {"rating": "0"}, **HTMX)
    html = client.get(workspace(campaign)).content.decode()
    assert "you reached this campaign's limit" in html


def test_a_draft_is_kept_and_shown_again_on_return():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    client = client_for(anna)
    client.get(workspace(campaign))
    assignment = Assignment.objects.get(annotator=anna)
    draft = {"rating": "3", "rationale": "Passage 0 of duc-1.", "rationale_start": "0"}
    assert client.post(item_url("annotation-draft", assignment), draft).status_code == 204
    html = client.get(workspace(campaign)).content.decode()  # leave and come back
    assert 'value="3" checked' in html and "Passage 0 of duc-1.</span>" in html


def test_direct_urls_to_someone_elses_item_are_404():
    anna, ben = make_annotator("anna"), make_annotator("ben")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna, ben])
    client_for(anna).get(workspace(campaign))
    annas = Assignment.objects.get(annotator=anna)
    ben_client = client_for(ben)
    assert ben_client.get(item_url("annotation-item", annas)).status_code == 404
    for name in ("annotation-submit", "annotation-skip", "annotation-draft"):
        assert ben_client.post(item_url(name, annas), {"rating": "1"}).status_code == 404
    annas.refresh_from_db()
    assert annas.state == "reserved" and annas.draft == {}
    assert client_for(anna).get(item_url("annotation-item", annas)).status_code == 200


def test_campaigns_one_was_not_invited_to_are_404():
    anna, eve = make_annotator("anna"), make_annotator("eve")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    assert client_for(eve).get(workspace(campaign)).status_code == 404
    assert Assignment.objects.count() == 0


def test_researcher_pages_are_closed_to_annotators():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    client = client_for(anna)
    for url in (
        reverse("campaign-list"),
        reverse("campaign-detail", args=[campaign.pk]),
        reverse("campaign-export", args=[campaign.pk, "csv"]),
        reverse("collection-list"),
    ):
        assert client.get(url).status_code == 403
    assert (
        client.post(reverse("campaign-state", args=[campaign.pk]), {"action": "close"}).status_code
        == 403
    )


def test_posts_without_a_csrf_token_are_refused():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    client_for(anna).get(workspace(campaign))
    assignment = Assignment.objects.get(annotator=anna)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(anna)
    response = strict.post(item_url("annotation-submit", assignment), {"rating": "1"}, **HTMX)
    assert response.status_code == 403
    assignment.refresh_from_db()
    assert assignment.state == "reserved"


def test_home_sends_annotators_to_their_campaigns():
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, annotators=[anna])
    client = client_for(anna)
    assert client.get("/").url == reverse("annotation-home")
    html = client.get(reverse("annotation-home")).content.decode()
    assert campaign.name in html and workspace(campaign) in html


def _reserved(task_type=PASSAGE_RATING):
    anna = make_annotator("anna")
    campaign = make_campaign(task_type, annotators=[anna])
    client = client_for(anna)
    client.get(workspace(campaign))
    return client, campaign, Assignment.objects.get(annotator=anna)


def test_a_malformed_prefetch_after_is_a_400_naming_it():
    client, campaign, assignment = _reserved()
    prefetch = reverse("annotation-prefetch", args=[campaign.slug])
    for bad in ["²", "٣x", "abc", "-1", "0", str(2**63), "9" * 5000, "1\x00", ""]:
        response = client.get(prefetch, {"after": bad}, **HTMX)
        assert response.status_code == 400, bad
        assert response.content.decode().startswith("* after\n"), bad
    assert client.get(prefetch, **HTMX).status_code == 400  # missing
    assert Assignment.objects.filter(annotator=assignment.annotator).count() == 1
    assert client.get(prefetch, {"after": assignment.pk}, **HTMX).status_code == 200


def test_a_malformed_time_spent_is_a_400_and_stores_nothing():
    client, _, assignment = _reserved()
    for bad in ["²", "abc", "-5", "1.5", str(10**13), "9" * 5000]:
        data = {"rating": "2", "rationale": "", "time_spent_ms": bad}
        response = client.post(item_url("annotation-submit", assignment), data, **HTMX)
        assert response.status_code == 400, bad
        assert response.content.decode().startswith("* time_spent_ms\n"), bad
    assignment.refresh_from_db()
    assert assignment.state == "reserved" and assignment.answer in (None, {})
    assert not Judge.objects.filter(user=assignment.annotator).exists()
    data = {"rating": "2", "rationale": "", "time_spent_ms": ""}
    assert client.post(item_url("annotation-submit", assignment), data, **HTMX).status_code == 200


def test_a_nul_character_in_a_submit_or_a_draft_is_a_400_and_stores_nothing():
    client, _, assignment = _reserved()
    data = {"rating": "2", "rationale": "Passage\x00 0", "time_spent_ms": "10"}
    response = client.post(item_url("annotation-submit", assignment), data, **HTMX)
    assert response.status_code == 400
    assert response.content.decode() == "rationale: holds a NUL character"
    response = client.post(item_url("annotation-draft", assignment), {"rat\x00ing": "3"})
    assert response.status_code == 400
    assert response.content.decode() == "rat\\x00ing: holds a NUL character"
    assignment.refresh_from_db()
    assert assignment.state == "reserved" and assignment.draft == {}
    assert not Judge.objects.filter(user=assignment.annotator).exists()
