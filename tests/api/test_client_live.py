"""The Python client (client/, ``crux_client``) against a live server with the real database:
push topics, passages, a run and qrels as DataFrames, wait for the import jobs, read the
leaderboard, the judgments and a campaign's labels as DataFrames. The import tasks run in the
server's process (eager), as a worker would run them."""

import pandas as pd
import pytest
from crux_client import ApiError, JobFailed

from annotation.models import Campaign
from annotation.queue import queue
from annotation.workspace.submission import submit
from crux_app.models import SubQuestion, Topic
from tests.annotation.campaign_data import make_annotator

pytestmark = pytest.mark.django_db(transaction=True)

TOPICS = pd.DataFrame({"qid": ["q1", "q2"], "query": ["floods in 1998", "monsoon rain"]})
PASSAGES = pd.DataFrame(
    {"docno": ["d1", "d2", "d3"], "text": ["rain caused floods", "a dam broke", "unrelated"]}
)
RUN = pd.DataFrame(
    {"qid": ["q1", "q1", "q1", "q2"], "docno": ["d1", "d2", "d3", "d2"], "score": [3, 2, 1, 5]}
)
QRELS = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d3", "d2"], "label": [2, 0, 1]})


def test_push_a_run_and_read_the_leaderboard(client_api):
    api = client_api
    api.create_collection("live")
    for fmt, frame, params in [
        ("topics", TOPICS, {}),
        ("passages", PASSAGES, {}),
        ("run", RUN, {"run_name": "bm25"}),
        ("qrels", QRELS, {"judge": "assessor", "judge_kind": "human"}),
    ]:
        job = api.upload("live", fmt, frame, **params)
        assert api.wait(job, timeout=60, poll=0.2, progress=True)["state"] == "succeeded"
    assert api.collection("live")["counts"]["topics"] == 2

    board = api.leaderboard("live", qrels="assessor", k=10)
    assert list(board.index) == ["bm25"]
    assert board.loc["bm25", "nDCG@10"] == pytest.approx(1.0)  # d1 first for q1, d2 for q2
    qrels = api.qrels("live", source="assessor")
    assert sorted(qrels["passage"]) == ["d1", "d2", "d3"]
    jobs = api.jobs(collection="live")
    assert set(jobs["state"]) == {"succeeded"} and len(jobs) >= 3


def test_errors_and_failed_jobs_surface(client_api):
    api = client_api
    with pytest.raises(ApiError) as refused:
        api.start_job("nowhere", "seper")
    assert refused.value.status == 404
    api.create_collection("broken")
    job = api.upload("broken", "run", b"q1 Q0 d1 1\n", run_name="r")
    with pytest.raises(JobFailed, match=r"run.txt:1|\.txt:1"):
        api.wait(job, timeout=60, poll=0.2, progress=False)


def test_labels_as_a_dataframe(client_api):
    api = client_api
    api.create_collection("lab")
    for fmt, frame in [("topics", TOPICS), ("passages", PASSAGES)]:
        api.wait(api.upload("lab", fmt, frame), timeout=60, poll=0.2, progress=False)
    # TREC topics have no sub-questions (the CRUX formats bring them): add the one rated.
    topic = Topic.objects.get(collection__name="lab", external_id="q1")
    SubQuestion.objects.create(topic=topic, position=0, text="What caused the floods?")
    anna = make_annotator("anna")
    items = [{"topic": "q1", "position": 0, "passage": d} for d in ("d1", "d2")]
    slug = api.create_campaign("live labels", "lab", items, annotators=["anna"])["slug"]
    campaign = Campaign.objects.get(slug=slug)
    rating = {"rating": 3, "rationale": "", "rationale_start": None, "rationale_end": None}
    submit(queue.next_item(campaign, anna).assignment, rating, 900)
    labels = api.labels(slug)
    assert len(labels) == 1 and labels.loc[0, "annotator"] == "anna"
    assert api.campaign(slug)["annotators"][0]["submitted"] == 1
