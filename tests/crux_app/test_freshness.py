"""Pages computed from data a running job (or a campaign) still changes say so with the time of
their data, and their banner, asked again every few seconds, offers a refresh once the data
moved (``crux_app.freshness``, ``crux_app.views.freshness``)."""

import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse
from django.utils import timezone

from crux_app import data_version
from crux_app.audit.context import audit_context
from crux_app.models import AuditEvent, Collection, Job, Judgment, Workspace
from tests.crux_app.factories import make_collection, make_topic
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db

POLL = re.compile(r'<div id="data-freshness"[^>]*hx-get="([^"]+)" hx-trigger="every (\d+)s')
AS_OF = re.compile(r'id="data-as-of">Numbers below as of <time datetime="([^"]+)">([0-9:]+)</time>')


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def hand():
    return make_hand_collection()


def running_judge(collection, done=420, total=770):
    return Job.objects.create(
        kind="judge_answerability",
        collection=collection,
        state=Job.State.RUNNING,
        done=done,
        total=total,
        params={"judge": "llm-judge"},
    )


def poll_url(html: str) -> str:
    return POLL.search(html).group(1).replace("&amp;", "&")


def test_a_bump_stamps_the_time_of_the_data_and_leaves_no_audit_record(hand):
    collection = hand.collection
    assert collection.data_changed_at is None and collection.data_time == collection.created_at
    before = timezone.now()
    events = AuditEvent.objects.count()
    with audit_context(origin="test"):
        data_version.bump(collection.pk)
    collection.refresh_from_db()
    assert before <= collection.data_changed_at <= timezone.now()
    # Bookkeeping of every write: never an audit record of its own.
    assert AuditEvent.objects.count() == events
    topic = collection.topics.first()
    stamped = collection.data_changed_at
    data_version.bump_topics([topic.pk])
    collection.refresh_from_db()
    assert collection.data_changed_at > stamped


def test_the_leaderboard_says_as_of_while_a_job_runs(researcher_client, hand):
    collection = hand.collection
    url = reverse("leaderboard", args=[collection.pk])
    idle = researcher_client.get(url).content.decode()
    # Nothing moves: no "as of", and the banner asks only now and then.
    Collection.objects.filter(pk=collection.pk).update(
        data_changed_at=timezone.now() - timedelta(hours=1)
    )
    idle = researcher_client.get(url).content.decode()
    assert not AS_OF.search(idle) and POLL.search(idle).group(2) == "30"

    job = running_judge(collection)
    html = researcher_client.get(url).content.decode()
    collection.refresh_from_db()
    stamp, shown = AS_OF.search(html).groups()
    assert shown == timezone.localtime(collection.data_time).strftime("%H:%M:%S")
    assert f"#{job.pk} at 420 of 770 items" in html
    assert POLL.search(html).group(2) == "5"  # while data moves, every 5 s
    query = parse_qs(urlsplit(poll_url(html)).query)
    assert query["since"] == [collection.data_version.hex] and query["area"] == ["leaderboard-area"]
    assert 'id="refresh-numbers"' not in html
    assert "js/freshness.js" in html


def test_the_banner_offers_a_refresh_once_the_data_moved(researcher_client, hand):
    collection = hand.collection
    page = reverse("leaderboard", args=[collection.pk]) + "?k=2"
    running_judge(collection)
    poll = poll_url(researcher_client.get(page).content.decode())
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": f"http://testserver{page}"}

    same = researcher_client.get(poll, **headers)
    assert same.status_code == 200 and "no-cache" in same["Cache-Control"]
    assert 'id="refresh-numbers"' not in same.text and "<html" not in same.text
    assert "js/freshness.js" not in same.text  # the page's script, loaded once

    # A judging batch is stored (a bulk write and the runner's bump).
    Judgment.objects.filter(judge=hand.llm, topic__external_id="ta").update(rating=5)
    data_version.bump(collection.pk)
    moved = researcher_client.get(poll, **headers).text
    button = re.search(r'<button type="button" id="refresh-numbers"[^>]*>', moved).group(0)
    # The page's own URL, its figure area swapped in place, the banner with it.
    assert 'hx-get="/collections/' in button and "k=2" in button
    assert 'hx-select="#leaderboard-area"' in button and 'hx-target="#leaderboard-area"' in button
    assert 'hx-select-oob="#data-freshness"' in button
    collection.refresh_from_db()
    assert timezone.localtime(collection.data_time).strftime("%H:%M:%S") in moved


@pytest.mark.parametrize("field", ["page", "area", "since", "at", "topic"])
def test_bad_banner_questions_are_400_naming_the_field(researcher_client, hand, field):
    running_judge(hand.collection)
    html = researcher_client.get(reverse("leaderboard", args=[hand.collection.pk])).text
    base, _, query = poll_url(html).partition("?")
    values = {k: v[0] for k, v in parse_qs(query).items()}
    values[field] = {"area": "not an id", "since": "xyz", "at": "yesterday"}.get(field, "-1")
    response = researcher_client.get(base, values)
    assert response.status_code == 400 and field in response.text


def test_the_banner_is_404_for_who_may_not_see_the_collection(researcher_client, hand):
    html = researcher_client.get(reverse("leaderboard", args=[hand.collection.pk])).text
    poll = poll_url(html)
    other_topic = make_topic(make_collection("other"), "elsewhere")
    assert researcher_client.get(f"{poll}&topic={other_topic.pk}").status_code == 404
    hand.collection.workspace = Workspace.objects.create(name="elsewhere")
    hand.collection.save()
    assert researcher_client.get(poll).status_code == 404


def test_each_live_page_carries_the_banner(researcher_client, hand):
    collection = hand.collection
    job = running_judge(collection)
    topic = collection.topics.get(external_id="ta")
    pages = {
        reverse("leaderboard", args=[collection.pk]): "leaderboard-area",
        reverse("agreement", args=[collection.pk]) + "?resamples=0": "agreement-area",
        reverse("judge-report", args=[collection.pk]): "judge-report-area",
        reverse("crux-topic", args=[collection.pk, topic.pk]): "matrix-area",
        reverse("nuggets-collection", args=[collection.pk]): "nuggets-area",
    }
    for url, area in pages.items():
        html = researcher_client.get(url).content.decode()
        assert f'id="{area}"' in html, url
        assert parse_qs(urlsplit(poll_url(html)).query)["area"] == [area], url
        if "nuggets" not in url:  # the judging job feeds the others
            assert f"#{job.pk} at 420 of 770 items" in html, url
