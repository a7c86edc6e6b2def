"""The answer-generation start page of a collection."""

import pytest
from django.urls import reverse

from crux_app.models import Job
from evaluation.answers.job import AnswerJobParams
from tests.crux_app.job_collections import make_answer_collection

pytestmark = pytest.mark.django_db


def _url(collection) -> str:
    return reverse("answers-start", args=[collection.pk])


def test_start_form_creates_a_pending_job_and_redirects_to_it(researcher_client, researcher):
    data = make_answer_collection(n_topics=2)
    response = researcher_client.post(_url(data.collection), {"run": data.run.pk, "k": 3})
    job = Job.objects.get()
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.pk])
    assert job.kind == "generate_answers" and job.state == Job.State.PENDING
    assert job.collection == data.collection and job.created_by == researcher
    assert job.params == AnswerJobParams(run_id=data.run.pk, k=3).as_params(data.run)


def test_start_form_closed_book(researcher_client):
    data = make_answer_collection(n_topics=1)
    researcher_client.post(_url(data.collection), {"k": 5})
    assert Job.objects.get().params["run_id"] is None


def test_start_form_refuses_a_run_of_another_collection(researcher_client):
    a = make_answer_collection("qa-a", n_topics=1)
    b = make_answer_collection("qa-b", n_topics=1)
    response = researcher_client.post(_url(a.collection), {"run": b.run.pk, "k": 5})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Job.objects.exists()


def test_the_collection_page_links_the_start_page(researcher_client):
    data = make_answer_collection(n_topics=1)
    html = researcher_client.get(reverse("collection-detail", args=[data.collection.pk]))
    assert _url(data.collection).encode() in html.content


def test_annotators_get_403_and_anonymous_users_go_to_login(client, annotator):
    data = make_answer_collection(n_topics=1)
    url = _url(data.collection)
    anonymous = client.post(url, {"k": 5})
    assert anonymous.status_code == 302 and anonymous.url.startswith(reverse("login"))
    client.force_login(annotator)
    assert client.post(url, {"k": 5}).status_code == 403
    assert not Job.objects.exists()
