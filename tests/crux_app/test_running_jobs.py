"""A page whose data a pending or running job is still filling says so (DENSE, SePer, SCAAR,
LLM-retEval, the matrix, the leaderboard, the agreement page), from one service that knows the
pages each job kind declared it feeds; the leaderboard offers no judging while one runs."""

import re

import pytest
from django.urls import reverse

from crux_app.jobs.feeding import AGREEMENT, LEADERBOARD, active_jobs, feeding_kinds
from crux_app.models import Collection, Job
from tests.crux_app.factories import make_collection, make_small_collection, make_topic

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


def job(collection, kind, state=Job.State.RUNNING, done=0, total=0, topic=None, **params):
    return Job.objects.create(
        kind=kind,
        collection=collection,
        topic=topic,
        state=state,
        done=done,
        total=total,
        params=params,
    )


def banner(html: str) -> list[str]:
    """The text of each running-job line of the page."""
    items = re.findall(r'<li class="running-job"[^>]*>(.*?)</li>', html, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", item)).strip() for item in items]


def test_the_kinds_declare_the_pages_they_feed():
    assert {"judge_answerability", "judge_embedding", "dense", "seper", "reteval"} <= set(
        feeding_kinds(LEADERBOARD)
    )
    assert {"judge_answerability", "dense", "seper", "reteval"} <= set(feeding_kinds(AGREEMENT))
    assert feeding_kinds("dense") == ["dense"] and feeding_kinds("scaar") == ["scaar"]
    assert "scaar" not in feeding_kinds(LEADERBOARD)


def test_only_unfinished_jobs_of_the_collection_or_topic_count():
    collection = make_collection("qa", kind=Collection.Kind.QA)
    t1, t2 = make_topic(collection, "q1"), make_topic(collection, "q2")
    running = job(collection, "dense", done=4, total=9, run="bm25", run_id=1, k=3)
    job(collection, "dense", state=Job.State.SUCCEEDED, done=9, total=9, run_id=1, k=3)
    job(make_collection("elsewhere"), "dense", run_id=1, k=3)
    pending = job(collection, "dense", state=Job.State.PENDING, topic=t2, run_id=1, k=3)
    found = active_jobs("dense", collection.pk)
    assert [j.job_id for j in found] == [running.pk, pending.pk]
    assert found[0].text == f"DENSE job #{running.pk} is running: 4 of 9 questions so far"
    assert found[0].params == "run bm25, top-3"
    assert "waiting for a worker" in found[1].text
    # A topic's page: that topic's jobs and the collection's whole-collection ones.
    assert [j.job_id for j in active_jobs("dense", collection.pk, t1.pk)] == [running.pk]
    assert [j.job_id for j in active_jobs("dense", collection.pk, t2.pk)] == [
        running.pk,
        pending.pk,
    ]
    assert active_jobs("scaar", collection.pk) == []


def test_each_method_page_says_which_job_is_still_filling_it(researcher_client):
    collection = make_collection("qa", kind=Collection.Kind.QA)
    topic = make_topic(collection, "q1")
    dense = job(collection, "dense", done=4, total=9, run="bm25", run_id=1, k=3)
    seper = job(
        collection, "seper", state=Job.State.PENDING, run="bm25", run_id=1, k=3, n_samples=5
    )
    scaar = job(collection, "scaar", done=1, total=2, k=3)
    reteval = job(collection, "reteval", done=2, total=3, run="contexts", run_id=1, ks=[1, 3])
    pages = {
        reverse("dense-collection", args=[collection.pk]): [dense],
        reverse("dense-topic", args=[collection.pk, topic.pk]): [dense],
        reverse("seper-collection", args=[collection.pk]): [seper],
        reverse("scaar-collection", args=[collection.pk]): [scaar],
        reverse("reteval-collection", args=[collection.pk]): [reteval],
        reverse("reteval-topic", args=[collection.pk, topic.pk]): [reteval],
        reverse("leaderboard", args=[collection.pk]): [dense, seper, reteval],
        reverse("agreement", args=[collection.pk]): [dense, seper, reteval],
    }
    for url, jobs in pages.items():
        response = researcher_client.get(url)
        assert response.status_code == 200, url
        lines = banner(response.content.decode())
        assert [int(re.search(r"job #(\d+)", line).group(1)) for line in lines] == [
            j.pk for j in jobs
        ], url
    html = researcher_client.get(reverse("dense-collection", args=[collection.pk])).text
    assert f"DENSE job #{dense.pk} is running: 4 of 9 questions so far" in html
    assert reverse("job-detail", args=[dense.pk]) in html
    html = researcher_client.get(reverse("reteval-collection", args=[collection.pk])).text
    assert f"LLM-retEval job #{reteval.pk} is running: 2 of 3 questions so far" in html
    assert "run contexts, k = 1, 3" in html
    # Once finished, the pages say nothing.
    Job.objects.update(state=Job.State.SUCCEEDED)
    assert banner(researcher_client.get(reverse("leaderboard", args=[collection.pk])).text) == []


def test_the_matrix_says_a_judging_job_is_running(researcher_client):
    data = make_small_collection()
    judging = job(
        data.collection, "judge_answerability", done=12, total=40, scope="collection", k=10
    )
    url = reverse("crux-topic", args=[data.collection.pk, data.topic.pk])
    (line,) = banner(researcher_client.get(url).text)
    assert f"Judge answerability (greedy) job #{judging.pk} is running: 12 of 40 items" in line


def slot(client, data) -> str:
    url = reverse("leaderboard", args=[data.collection.pk])
    html = client.get(url, {"k": "4", "judge": data.llm.name}).content.decode()
    return html


def test_the_leaderboard_offers_no_judging_while_a_judging_job_runs(researcher_client):
    data = make_small_collection()
    assert 'id="judge-missing-slot"' in slot(researcher_client, data)
    # The embedding baseline does not rate the LLM's missing items: still offered.
    job(data.collection, "judge_embedding", scope="collection", k=10, method="embedding")
    assert 'id="judge-missing-slot"' in slot(researcher_client, data)
    pending = job(
        data.collection, "judge_answerability", state=Job.State.PENDING, scope="collection", k=4
    )
    html = slot(researcher_client, data)
    assert 'id="judge-missing-slot"' not in html and "Judge missing items (LLM)" not in html
    note = re.search(r'<p class="small" id="judge-missing-running"[^>]*>(.*?)</p>', html, re.S)
    assert note and f"job #{pending.pk} is waiting for a worker" in note.group(1)
    pending.state = Job.State.FAILED
    pending.save()
    assert 'id="judge-missing-slot"' in slot(researcher_client, data)
