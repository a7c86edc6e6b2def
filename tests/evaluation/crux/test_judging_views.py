"""Starting judging jobs from the pages: the form, one-click buttons on the topic and matrix
pages, validation and access."""

import re

import pytest
from django.urls import reverse

from crux_app.jobs.catalog import get_kind
from crux_app.jobs.status import task_queue
from crux_app.models import Job
from evaluation.crux.job import KIND, JudgeJobParams
from evaluation.crux.judge_scope import OUTPUTS, RUN
from tests.crux_app.factories import (
    make_collection,
    make_passages,
    make_run,
    make_small_collection,
    make_topic,
)

pytestmark = pytest.mark.django_db


def _start_url(data) -> str:
    return reverse("crux-start", args=[data.collection.pk])


def _other_run():
    """A run (``ext-run``, topic ``ext-1``) of another collection."""
    collection = make_collection("other")
    topic = make_topic(collection, "ext-1")
    return make_run(collection, "ext-run", topic, make_passages(collection, "ext", 2))


def _forms_posting_to(html: str, url: str) -> list[str]:
    return re.findall(rf'<form method="post" action="{re.escape(url)}".*?</form>', html, re.S)


def test_form_offers_the_collections_runs_topics_and_names_the_configured_judge(
    researcher_client, settings
):
    settings.JUDGE_MODEL, settings.GENERATOR_MODEL = "org/judge-70b", ""
    data = make_small_collection()
    _other_run()  # another collection's runs and topics are not offered
    response = researcher_client.get(_start_url(data) + f"?scope=run&run={data.dense.pk}&k=7")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<b class="mono" id="configured-judge">org/judge-70b</b>' in html
    assert html.count(">bm25</option>") == 1
    # Topics are looked up as the researcher types (the field's datalist), not listed.
    assert "duc04-testb-3" not in html and 'list="id_topic-matches"' in html
    search = reverse("topic-search", args=[data.collection.pk])
    matches = researcher_client.get(search, {"topic": ""}).content.decode()
    assert 'value="duc04-testb-3"' in matches and "ext-1" not in matches
    assert "ext-run" not in html and "ext-1" not in html
    assert f'<option value="{data.dense.pk}" selected>dense</option>' in html
    assert '<option value="run" selected>' in html and 'value="7"' in html
    assert "never judged again" in html


def test_a_post_starts_a_pending_job_and_opens_its_page(researcher_client, researcher):
    data = make_small_collection()
    response = researcher_client.post(
        _start_url(data),
        {"scope": RUN, "run": data.bm25.pk, "k": 3, "topic": data.topic.external_id},
    )
    job = Job.objects.get()
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.pk])
    assert (job.kind, job.state, job.created_by) == (KIND, Job.State.PENDING, researcher)
    assert (job.collection, job.topic) == (data.collection, data.topic)
    assert job.params == JudgeJobParams(scope=RUN, run_id=data.bm25.pk, k=3).as_params(data.bm25)
    assert get_kind(KIND).task_name == "jobs.judge_answerability"


def test_a_minimal_post_uses_the_defaults_and_a_blank_model_means_the_configured_judge(
    researcher_client,
):
    data = make_small_collection()
    researcher_client.post(_start_url(data), {"scope": OUTPUTS, "model": ""})
    job = Job.objects.get()
    assert job.topic is None
    assert job.params == JudgeJobParams(scope=OUTPUTS).as_params()
    assert job.params["model"] is None


def test_invalid_posts_start_nothing_and_say_why(researcher_client):
    data = make_small_collection()
    other_run = _other_run()
    response = researcher_client.post(_start_url(data), {"scope": RUN})
    assert response.status_code == 400
    assert "Choose the run whose top-k passages are judged." in response.content.decode()
    response = researcher_client.post(_start_url(data), {"scope": RUN, "run": other_run.pk})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    response = researcher_client.post(_start_url(data), {"scope": "everything", "k": 0})
    assert response.status_code == 400
    assert not Job.objects.exists()


def test_topic_page_has_buttons_for_missing_passage_and_report_items(researcher_client):
    data = make_small_collection()
    url = reverse("topic-detail", args=[data.collection.pk, data.topic.pk])
    forms = _forms_posting_to(researcher_client.get(url).content.decode(), _start_url(data))
    assert len(forms) == 2
    assert f'name="topic" value="{data.topic.external_id}"' in forms[0]
    assert 'name="scope" value="collection"' in forms[0]
    assert 'name="scope" value="outputs"' in forms[1]
    assert "Judge missing passage items (LLM)" in forms[0]


def test_matrix_page_button_judges_the_topic_at_the_selected_k(researcher_client):
    data = make_small_collection()
    url = reverse("crux-topic", args=[data.collection.pk, data.topic.pk]) + "?k=4"
    forms = _forms_posting_to(researcher_client.get(url).content.decode(), _start_url(data))
    assert len(forms) == 1
    assert f'name="topic" value="{data.topic.external_id}"' in forms[0]
    assert 'name="k" value="4"' in forms[0]


@pytest.mark.parametrize("method", ["get", "post"])
def test_annotators_get_403_and_anonymous_users_go_to_login(client, annotator, method):
    data = make_small_collection()
    response = getattr(client, method)(_start_url(data))
    assert response.status_code == 302 and "/accounts/login/" in response.url
    client.force_login(annotator)
    assert getattr(client, method)(_start_url(data)).status_code == 403
    assert not Job.objects.exists()


@pytest.mark.parametrize(("k", "hidden_k"), [("4", 'name="k" value="4"'), ("oracle", None)])
def test_leaderboard_button_judges_the_missing_items_at_the_boards_k(
    researcher_client, k, hidden_k
):
    data = make_small_collection()
    # (The LLM judge, named: its missing items are what the button judges.)
    url = reverse("leaderboard", args=[data.collection.pk]) + f"?k={k}&judge={data.llm.name}"
    html = researcher_client.get(url).content.decode()
    slot = re.search(r'<div id="judge-missing-slot" data-missing="(\d+)">(.*?)</div>', html, re.S)
    assert slot and int(slot.group(1)) > 0
    forms = _forms_posting_to(slot.group(2), _start_url(data))
    assert len(forms) == 1 and 'name="scope" value="collection"' in forms[0]
    assert 'name="topic"' not in forms[0]
    if hidden_k:
        assert hidden_k in forms[0]
    else:
        assert 'name="k"' not in forms[0]  # |O| differs per topic: the job's default k


@pytest.mark.parametrize(
    ("method", "kind", "suffix"),
    [("distribution", KIND, "+dist"), ("embedding", "judge_embedding", None)],
)
def test_the_page_starts_distribution_mode_and_the_embedding_baseline(
    researcher_client, method, kind, suffix
):
    data = make_small_collection()
    response = researcher_client.post(_start_url(data), {"scope": "collection", "method": method})
    job = Job.objects.get()
    assert response.status_code == 302 and (job.kind, job.params["method"]) == (kind, method)
    parsed = JudgeJobParams.from_params(job.params)
    if suffix:
        assert parsed.prompt_version.endswith(suffix)
    else:
        assert parsed.prompt_version == "cosine-v1"
        assert task_queue(get_kind(kind).task_name) == "cpu"


def test_the_embedding_baseline_takes_no_model(researcher_client):
    data = make_small_collection()
    response = researcher_client.post(
        _start_url(data), {"scope": "collection", "method": "embedding", "model": "org/x"}
    )
    assert response.status_code == 400 and not Job.objects.exists()
