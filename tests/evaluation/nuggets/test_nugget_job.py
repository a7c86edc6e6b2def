"""The nugget judging job on a scripted judge: assignment (greedy and distribution mode),
sentence support, creation with importance, and idempotency (a re-run asks the judge nothing)."""

import re

import numpy as np
import pytest

from crux_app.models import Collection, Job, Judge, Passage, PassageQrel, Topic
from evaluation.backends.base import Generation, GenerationParams
from evaluation.nuggets.job import KIND, NuggetModels, run_nugget_job
from evaluation.nuggets.models import Nugget, NuggetAssignment, SentenceSupport
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db


class ScriptedJudge:
    """Replies ``reply(prompt)``; ``continuation_logprobs`` from ``scores(prompt)``."""

    model_id = "test/nugget-judge"

    def __init__(self, reply=None, scores=None) -> None:
        self.reply, self.scores = reply, scores
        self.prompts: list[str] = []

    def generate(self, prompts, params: GenerationParams):
        self.prompts += prompts
        return [[Generation(text=self.reply(p))] for p in prompts]

    def continuation_logprobs(self, prompts, candidates, use_chat_template=True):
        self.prompts += prompts
        return np.array([self.scores(p, candidates) for p in prompts])


def start(params: dict, judge: ScriptedJudge, topic: Topic | None = None) -> Job:
    job = Job.objects.create(
        kind=KIND, params=params, collection=Collection.objects.get(name=NAME), topic=topic
    )
    return run_nugget_job(job, NuggetModels(judge.model_id, lambda: judge))


def states_fact(prompt: str) -> str:
    answer = re.search(r"Answer: (.*)\n", prompt).group(1).lower()
    fact = re.search(r"Fact: (.*)\n", prompt).group(1).lower()
    return "1" if fact.split()[1] in answer else "3"


def test_assignment_job_stores_labels_and_skips_them_next_time(tmp_path):
    load_all(tmp_path)
    judge = ScriptedJudge(states_fact)

    job = start({"task": "assign", "grades": 3}, judge)

    assert job.state == Job.State.SUCCEEDED, job.errors
    row = Judge.objects.get(model_id="test/nugget-judge")
    assert row.kind == "llm" and row.prompt_version == "nuggets-v1-assign-3g"
    stored = NuggetAssignment.objects.filter(judge=row)
    assert stored.count() == 7 and len(judge.prompts) == 7
    moon = stored.get(output__external_id="runA:t1", nugget__position=0)
    assert moon.assignment == "support" and moon.raw_output == "1"
    assert stored.get(output__external_id="runB:t1", nugget__position=0).assignment == (
        "not_support"
    )
    again = ScriptedJudge(lambda p: pytest.fail("asked again"))
    assert start({"task": "assign", "grades": 3}, again).state == Job.State.SUCCEEDED
    assert again.prompts == []


def test_distribution_mode_keeps_the_label_distribution(tmp_path):
    load_all(tmp_path)
    judge = ScriptedJudge(scores=lambda p, c: [np.log(0.2), np.log(0.8)])

    job = start({"task": "assign", "grades": 2, "distribution": True}, judge)

    assert job.state == Job.State.SUCCEEDED, job.errors
    row = Judge.objects.get(prompt_version="nuggets-v1-assign-2g-dist")
    label = NuggetAssignment.objects.filter(judge=row).first()
    assert label.assignment == "not_support"
    assert label.distribution == {"support": pytest.approx(0.2), "not_support": pytest.approx(0.8)}


def test_unparsable_replies_store_nothing(tmp_path):
    load_all(tmp_path)
    job = start({"task": "assign"}, ScriptedJudge(lambda p: "maybe"))
    assert job.state == Job.State.SUCCEEDED
    assert not NuggetAssignment.objects.filter(judge__model_id="test/nugget-judge").exists()
    assert NuggetAssignment.objects.count() == 7  # the imported ones only


def test_sentence_support_grades_each_cited_passage_with_text(tmp_path):
    load_all(tmp_path)
    Passage.objects.filter(external_id__in=["d1", "d2"]).update(text="moon text", has_text=True)
    judge = ScriptedJudge(lambda p: "2" if "moon" in p.split("Sentence:")[1] else "0")

    job = start({"task": "support"}, judge)

    assert job.state == Job.State.SUCCEEDED, job.errors
    grades = {
        (s.sentence.text, s.passage.external_id): s.grade for s in SentenceSupport.objects.all()
    }
    assert grades == {
        ("The moon's gravity pulls on the oceans.", "d1"): 2,
        ("The sun adds a smaller pull.", "d2"): 0,  # d3 has no text: not graded
    }


def test_creation_makes_nuggets_from_top_judged_passages_with_importance(tmp_path):
    load_all(tmp_path)
    collection = Collection.objects.get(name=NAME)
    topic = Topic.objects.create(collection=collection, external_id="t3", request="what is fog")
    for docid, grade in (("f1", 3), ("f2", 1), ("f3", 0)):
        passage = Passage.objects.create(collection=collection, external_id=docid, text=docid)
        PassageQrel.objects.create(topic=topic, passage=passage, grade=grade, source="qrels")

    def reply(prompt: str) -> str:
        if prompt.startswith("You are building"):
            return "- fog is a cloud at ground level\n- fog forms when air cools"
        return "1" if "cloud" in prompt else "2"

    judge = ScriptedJudge(reply)
    job = start({"task": "create", "window": 1}, judge, topic=topic)

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert list(Nugget.objects.filter(topic=topic).values_list("text", "importance")) == [
        ("fog is a cloud at ground level", "vital"),
        ("fog forms when air cools", "okay"),
    ]
    creation = [p for p in judge.prompts if p.startswith("You are building")]
    assert len(creation) == 2  # f1 then f2, one window each; f3 is graded 0
    assert "[1] f1" in creation[0] and "1. fog is a cloud" in creation[1]


def test_a_job_with_nothing_to_do_fails_saying_so(tmp_path):
    load_all(tmp_path)
    job = start({"task": "create"}, ScriptedJudge(lambda p: ""))
    assert job.state == Job.State.FAILED
    assert "nothing to create" in str(job.errors)
