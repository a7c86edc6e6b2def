"""A write through every real write path shows on the cached leaderboard at once.

Each test caches the page, writes through one path (importers, the job runner, an ORM save, an
expert's matrix rating, an annotator's submit and undo, deleting a run, the admin), checks that
the write changed the numbers ``manage.py evaluate`` prints (uncached), and that the page now
shows exactly those: a cache that missed the write would show the old ones.
"""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from annotation.workspace.undo import undo
from crux_app.dataio.imports.qrels import import_qrels
from crux_app.dataio.imports.run import import_run
from crux_app.jobs.runner import run_batches
from crux_app.models import Job, Judge, Judgment, Run, SubQuestion
from evaluation.crux.matrix.cell import ExpertRating, record_expert_rating
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.crux.evaluate_collection import make_hand_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


@pytest.fixture
def hand():
    return make_hand_collection()


def command_records(*args: str) -> dict[str, dict]:
    out = io.StringIO()
    call_command("evaluate", "--collection", "hand", *args, stdout=out)
    return {r["run"]: r for r in json.loads(out.getvalue())}


def page_records(client, hand, **query) -> dict[str, dict]:
    url = reverse("leaderboard", args=[hand.collection.pk])
    response = client.get(url, query)
    assert response.status_code == 200, response.text[:500]
    return {r["run"]: r for r in response.context["board"].rows}


class Page:
    """The page at one query, checked against the command's records for the same parameters."""

    def __init__(self, client, hand, query: dict, args: list[str]) -> None:
        self.client, self.hand, self.query, self.args = client, hand, query, args

    def fresh(self) -> dict[str, dict]:
        """Request the page (twice: the second is the cached one) and check both against the
        command; returns the command's records."""
        expected = command_records(*self.args)
        assert page_records(self.client, self.hand, **self.query) == expected
        assert page_records(self.client, self.hand, **self.query) == expected
        return expected


def test_importing_a_run_shows_its_new_ranking(researcher_client, hand, tmp_path: Path):
    page = Page(researcher_client, hand, {"k": 2}, ["--k", "2"])
    before = page.fresh()
    lines = ["ta Q0 ta:0#3 1 3.0 new", "ta Q0 ta:0#2 2 2.0 new", "tb Q0 tb:0#0 1 1.0 new"]
    (tmp_path / "r2.run").write_text("\n".join(lines) + "\n")
    import_run("hand", tmp_path / "r2.run", run_name="r2")
    after = page.fresh()
    assert after["r2"] != before["r2"]


def test_importing_qrels_shows_the_new_oracle(researcher_client, hand, tmp_path: Path):
    page = Page(researcher_client, hand, {"k": 2}, ["--k", "2"])
    before = page.fresh()
    qrels = ["ta 0 ta:0#3 3", "ta 0 ta:0#2 3", "ta 0 ta:0#0 1", "ta 0 ta:0#1 1",
             "tb 0 tb:0#1 3", "tb 0 tb:0#0 1", "tc 0 tc:0#0 3"]  # fmt: skip
    (tmp_path / "nist.qrels").write_text("\n".join(qrels) + "\n")
    # More rows than the collection's own qrels: the default source from now on.
    import_qrels("hand", tmp_path / "nist.qrels", judge="nist", judge_kind="human")
    after = page.fresh()
    assert after != before


def test_a_method_job_storing_through_the_runner_shows(researcher_client, hand):
    page = Page(researcher_client, hand, {"k": 2}, ["--k", "2"])
    before = page.fresh()
    job = Job.objects.create(kind="test-judging", collection=hand.collection)

    def store(batch):
        # A bulk write, as the method jobs store: no signal, only the runner's bump.
        Judgment.objects.filter(judge=hand.llm, topic__external_id="ta").update(rating=5)
        return {"stored": len(batch)}

    run_batches(job, [[1]], store)
    job.refresh_from_db()
    assert job.state == Job.State.SUCCEEDED
    after = page.fresh()
    assert after != before


def test_a_judgment_saved_through_the_orm_shows(researcher_client, hand):
    page = Page(
        researcher_client, hand, {"k": 2, "judge": "human-1"}, ["--k", "2", "--judge", "human-1"]
    )
    before = page.fresh()
    judgment = Judgment.objects.get(
        judge=hand.human, passage=hand.passages["p0"], subquestion__position=0
    )
    judgment.rating = 5  # q0 becomes answerable by a required passage
    judgment.save()
    after = page.fresh()
    assert after != before


def test_an_expert_rating_in_the_matrix_shows(researcher_client, researcher, hand):
    sq = {s.position: s for s in SubQuestion.objects.filter(topic=hand.topics["ta"])}
    ta = hand.topics["ta"]
    record_expert_rating(researcher, ta, ExpertRating(sq[0], hand.passages["p0"], 5))
    name = Judge.objects.get(user=researcher).name
    page = Page(researcher_client, hand, {"k": 2, "judge": name}, ["--k", "2", "--judge", name])
    before = page.fresh()
    record_expert_rating(researcher, ta, ExpertRating(sq[0], hand.passages["p2"], 5))
    after = page.fresh()
    assert after != before


def test_annotators_submits_and_undo_show(researcher_client, hand):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, collection=hand.collection, annotators=[anna])
    seen = []
    page = None
    for _ in range(campaign.items.count()):
        assignment = queue.next_item(campaign, anna).assignment
        if assignment is None:
            break
        submit(assignment, {"rating": 5, "rationale": "Passage", "rationale_start": 0,
                            "rationale_end": 7}, 1000)  # fmt: skip
        if page is None:
            name = Judge.objects.get(user=anna).name
            query, args = {"k": 2, "judge": name}, ["--k", "2", "--judge", name]
            page = Page(researcher_client, hand, query, args)
        seen.append(page.fresh())
    changes = sum(a != b for a, b in zip(seen, seen[1:], strict=False))
    assert changes >= 1, "no submit changed the numbers: the test could not fail"
    undo(assignment)
    assert page.fresh() != seen[-1]


def test_deleting_a_run_removes_its_row(researcher_client, hand):
    page = Page(researcher_client, hand, {"k": 2}, ["--k", "2"])
    assert "r2" in page.fresh()
    Run.objects.get(collection=hand.collection, name="r2").delete()
    assert set(page.fresh()) == {"empty", "r1"}


def test_deleting_judgments_in_the_admin_shows(client, django_user_model, hand):
    admin_user = django_user_model.objects.create_superuser("root", password="root-pass-123")
    client.force_login(admin_user)
    page = Page(client, hand, {"k": 2}, ["--k", "2"])
    before = page.fresh()
    ids = list(
        Judgment.objects.filter(judge=hand.llm, topic__external_id="ta").values_list(
            "pk", flat=True
        )
    )
    changelist = reverse("admin:crux_app_judgment_changelist")
    response = client.post(
        changelist,
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert response.status_code == 302
    assert not Judgment.objects.filter(pk__in=ids).exists()
    after = page.fresh()
    assert after != before
    one = Judgment.objects.filter(judge=hand.llm).first()
    response = client.post(
        reverse("admin:crux_app_judgment_delete", args=[one.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert page.fresh() != after
