"""The judging page says how many items the chosen options would judge before the job starts:
the job's own plan for the judge the options name, updated (htmx) as they change; options that
are not valid are a 400 naming the field."""

import pytest
from django.urls import reverse

from crux_app.models import Job
from evaluation.crux.job import KIND, JudgeJobParams, run_judge_job
from evaluation.crux.judge_scope import OUTPUTS, RUN
from tests.crux_app.factories import (
    make_collection,
    make_passages,
    make_run,
    make_small_collection,
    make_topic,
)
from tests.evaluation.crux.fake_judge import ScriptedJudge

pytestmark = pytest.mark.django_db

SCRIPTED = ScriptedJudge.model_id


@pytest.fixture(autouse=True)
def configured_judge(settings):
    settings.JUDGE_MODEL, settings.GENERATOR_MODEL, settings.JUDGE_API_BASE = "org/judge", "", ""


def _count(client, data, **query):
    return client.get(reverse("crux-start-count", args=[data.collection.pk]), query)


def _numbers(response) -> tuple[str, str]:
    html = response.content.decode()
    to_judge = html.split('data-to-judge="')[1].split('"')[0]
    already = html.split('data-already-judged="')[1].split('"')[0]
    return to_judge, already


def test_the_count_is_the_plan_of_the_chosen_scope(researcher_client):
    data = make_small_collection()
    # Pooled passages, top 10: 17 items to judge, 3 skipped (a passage without text).
    response = _count(researcher_client, data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<b>17 items to judge</b> of the 20 in this scope" in html
    assert "3 skipped: no text" in html
    assert 'Judge <span class="mono">org/judge@crux-rubric-v1</span> (new: it has rated' in html

    run = _count(researcher_client, data, scope=RUN, run=data.bm25.pk, k=2)
    assert _numbers(run) == ("6", "0")
    one_topic = _count(researcher_client, data, topic=data.other_topic.external_id)
    assert _numbers(one_topic) == ("2", "0")
    reports = _count(researcher_client, data, scope=OUTPUTS)
    assert _numbers(reports) == ("3", "0")  # one report x 3 real sub-questions


def test_items_the_named_judge_rated_are_counted_as_already_judged(researcher_client):
    data = make_small_collection()
    params = JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=2).as_params(data.bm25)
    job = Job.objects.create(kind=KIND, params=params, collection=data.collection)
    run_judge_job(job, ScriptedJudge().as_model())

    response = _count(researcher_client, data, model=SCRIPTED)
    assert _numbers(response) == ("11", "6")
    assert (
        '6 already judged by <span class="mono">test/scripted-judge@' in response.content.decode()
    )
    # Another judge identity (the distribution mode, the configured judge) has rated nothing.
    assert _numbers(_count(researcher_client, data, model=SCRIPTED, method="distribution")) == (
        "17",
        "0",
    )
    assert _numbers(_count(researcher_client, data)) == ("17", "0")

    # The job started with these options judges exactly the counted items.
    start = researcher_client.post(
        reverse("crux-start", args=[data.collection.pk]), {"scope": "collection", "model": SCRIPTED}
    )
    assert start.status_code == 302
    second = Job.objects.exclude(pk=job.pk).get()
    run_judge_job(second, ScriptedJudge().as_model())
    assert (second.total, second.state) == (11, Job.State.SUCCEEDED)
    assert _numbers(_count(researcher_client, data, model=SCRIPTED)) == ("0", "17")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"scope": RUN}, "run: Choose the run"),
        ({"k": "abc"}, "k: Enter a whole number."),
        ({"k": str(10**30)}, "k: Ensure this value is less than or equal to 1000."),
        ({"k": "0"}, "k: Ensure this value is greater than or equal to 1."),
        ({"scope": "everything"}, "scope: Select a valid choice."),
        ({"run": "999999999"}, "run: Select a valid choice."),
        ({"topic": "1\x00"}, "topic: "),
        ({"method": "oracle"}, "method: Select a valid choice."),
        ({"model": "x" * 301}, "model: Ensure this value has at most 300 characters"),
        ({"method": "embedding", "model": "other"}, "model: The embedding baseline uses"),
    ],
)
def test_options_that_are_not_valid_are_a_400_naming_the_field(researcher_client, query, field):
    data = make_small_collection()
    response = _count(researcher_client, data, **query)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="judge-count-errors"' in html and field in html
    assert "data-to-judge" not in html


def test_another_collections_run_or_topic_is_refused(researcher_client):
    data = make_small_collection()
    collection = make_collection("other")
    topic = make_topic(collection, "ext-1")
    run = make_run(collection, "ext-run", topic, make_passages(collection, "ext", 2))
    for query in ({"scope": RUN, "run": run.pk}, {"topic": topic.external_id}):
        assert _count(researcher_client, data, **query).status_code == 400


def test_the_options_page_shows_the_count_of_its_initial_options_and_asks_again_on_change(
    researcher_client,
):
    data = make_small_collection()
    url = reverse("crux-start", args=[data.collection.pk])
    html = researcher_client.get(f"{url}?scope=run&run={data.bm25.pk}&k=2").content.decode()
    count_url = reverse("crux-start-count", args=[data.collection.pk])
    assert f'hx-get="{count_url}" hx-trigger="input delay:300ms"' in html
    assert 'hx-target="#judge-count"' in html and 'hx-params="not csrfmiddlewaretoken"' in html
    # The count is asked for once the page is shown (planning reads the whole scope).
    assert 'id="judge-count-pending"' in html and 'hx-trigger="load"' in html
    assert 'hx-include="#crux-start form"' in html and "data-to-judge" not in html
    count = _count(researcher_client, data, scope=RUN, run=data.bm25.pk, k=2)
    assert 'data-to-judge="6"' in count.content.decode()
    assert "/static/js/judge_count.js" in html

    refused = researcher_client.post(url, {"scope": RUN, "k": 3})  # no run: refused, counted
    assert refused.status_code == 400
    assert "run: Choose the run" in refused.content.decode()


def test_annotators_and_anonymous_users_get_no_count(client, annotator):
    data = make_small_collection()
    url = reverse("crux-start-count", args=[data.collection.pk])
    assert client.get(url).status_code == 302
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    assert client.get(reverse("crux-start-count", args=[10**9])).status_code in (403, 404)
