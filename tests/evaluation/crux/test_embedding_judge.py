"""The embedding baseline judge: the cut points (hand-computed), the engine on hand-made
vectors and on the embedded embedder, the job's storage and idempotence, the `judge` command."""

import io

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from crux_app.jobs.catalog import get_kind
from crux_app.jobs.status import task_queue
from crux_app.models import Job, Judge, Judgment
from evaluation.crux.embedding_engine import rate_by_embedding
from evaluation.crux.engine import JudgeItem
from evaluation.crux.job import EMBEDDING, EMBEDDING_KIND, JudgeJobParams, JudgeModel, run_judge_job
from evaluation.crux.method.embedding_rating import (
    CUT_POINTS,
    PROMPT_VERSION,
    ratings_from_cosines,
    row_cosines,
)
from tests.crux_app.factories import make_small_collection
from tests.evaluation.crux.fake_judge import ScriptedJudge


class AxisEmbedder:
    """Unit vectors at a chosen angle: a text "cos=0.40" is (0.40, sqrt(1 - 0.40²)); any other
    text is (1, 0), so the cosine of a question with a "cos=c" context is c."""

    model_id = "test/axis-embedder"

    def __init__(self):
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        rows = []
        for text in texts:
            c = float(text.split("cos=")[1].split()[0]) if "cos=" in text else 1.0
            rows.append([c, np.sqrt(max(0.0, 1 - c * c))])
        return np.array(rows)


def test_cut_points_hand_computed():
    cosines = np.array([-0.2, 0.0, 0.1499, 0.15, 0.2, 0.25, 0.449, 0.45, 0.5999, 0.6, 1.0])
    assert ratings_from_cosines(cosines).tolist() == [0, 0, 0, 1, 1, 2, 3, 4, 4, 5, 5]
    assert len(CUT_POINTS) == 5 and list(CUT_POINTS) == sorted(CUT_POINTS)
    assert ratings_from_cosines(np.array([])).tolist() == []
    with pytest.raises(ValueError, match="NaN"):
        ratings_from_cosines(np.array([0.3, np.nan]))


def test_row_cosines_pairs_rows_and_refuses_a_shape_mismatch():
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    c = np.array([[0.6, 0.8], [0.6, 0.8]])
    assert row_cosines(q, c) == pytest.approx([0.6, 0.8])
    with pytest.raises(ValueError, match="2 questions but 1 contexts"):
        row_cosines(q, c[:1])


def test_engine_rates_in_item_order_in_one_call():
    embedder = AxisEmbedder()
    items = [JudgeItem(i, "question", f"cos={c}") for i, c in enumerate([0.1, 0.3, 0.7])]
    rated = rate_by_embedding(items, embedder)
    assert [r.rating for r in rated] == [0, 2, 5] and embedder.calls == 1
    assert rated[1].raw_output == "cosine=0.3000" and rated[1].prompt == PROMPT_VERSION
    assert rate_by_embedding([], embedder) == [] and embedder.calls == 1
    with pytest.raises(ValueError, match="no context"):
        rate_by_embedding([JudgeItem(9, "q", "  ")], embedder)


@pytest.mark.models
def test_the_embedded_embedder_rates_an_answer_above_an_unrelated_text(embedder):
    question = "When did the Panama Canal open to traffic?"
    items = [
        JudgeItem("answer", question, "The Panama Canal opened to shipping traffic in 1914."),
        JudgeItem("unrelated", question, "Sourdough bread needs a starter and a long rise."),
    ]
    answer, unrelated = rate_by_embedding(items, embedder)
    assert answer.rating > unrelated.rating
    assert float(answer.raw_output.split("=")[1]) > float(unrelated.raw_output.split("=")[1])


def _job(data) -> Job:
    params = JudgeJobParams(method=EMBEDDING, k=10, batch_size=4)
    return Job.objects.create(
        kind=EMBEDDING_KIND, params=params.as_params(), collection=data.collection
    )


@pytest.mark.django_db
def test_the_job_stores_one_judgment_per_item_under_its_own_identity_and_is_idempotent():
    data = make_small_collection()
    embedder = AxisEmbedder()
    model = lambda name: JudgeModel(model_id=embedder.model_id, load=lambda: embedder)  # noqa: E731
    job = run_judge_job(_job(data), model)
    assert job.state == Job.State.SUCCEEDED, job.message
    judge = Judge.objects.get(model_id=embedder.model_id)
    assert judge.prompt_version == PROMPT_VERSION and judge.kind == Judge.Kind.LLM
    rows = Judgment.objects.filter(judge=judge)
    assert rows.count() > 0 and not rows.filter(rating__isnull=True).exists()
    assert all(r.startswith("cosine=") for r in rows.values_list("raw_output", flat=True))
    stored, calls = rows.count(), embedder.calls
    again = run_judge_job(_job(data), model)
    assert again.state == Job.State.SUCCEEDED and rows.count() == stored
    assert embedder.calls == calls  # nothing missing: the embedder is not called again


def test_the_kind_runs_on_the_cpu_queue():
    assert task_queue(get_kind(EMBEDDING_KIND).task_name) == "cpu"


@pytest.mark.django_db
@pytest.mark.models
def test_the_command_judges_with_the_embedded_embedder_and_then_has_nothing_left():
    data = make_small_collection()
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "judge", "--collection", data.collection.name, "--embedding", stdout=out, stderr=err
    )
    judge = Judge.objects.get(prompt_version=PROMPT_VERSION)
    n = Judgment.objects.filter(judge=judge).count()
    assert n > 0 and f"judge {judge.name}: judged {n}" in out.getvalue()
    call_command("judge", "--collection", data.collection.name, "--embedding", stdout=out)
    assert Judgment.objects.filter(judge=judge).count() == n
    assert "already judged" in out.getvalue()


@pytest.mark.django_db
def test_the_command_scopes_like_the_job_and_lists_unparsable_outputs(monkeypatch):
    data = make_small_collection()
    scripted = ScriptedJudge(lambda p: "I cannot tell")
    monkeypatch.setattr("evaluation.crux.tasks.judge_model_for", scripted.as_model())
    out = io.StringIO()
    call_command("judge", "--collection", data.collection.name, "--run", "bm25", "--k", "2",
                 stdout=out, stderr=io.StringIO())  # fmt: skip
    rows = Judgment.objects.filter(judge__model_id=ScriptedJudge.model_id)
    assert {p for p in rows.values_list("passage__external_id", flat=True)} <= {
        f"{data.topic.external_id}:0#0",
        f"{data.topic.external_id}:0#1",
    }
    assert rows.count() > 0 and not rows.filter(rating__isnull=False).exists()
    text = out.getvalue()
    assert f"judged {rows.count()}" in text and f"unparsable {rows.count()}" in text
    assert text.count("unparsable: sub-question") == min(rows.count(), 10)
    assert "'I cannot tell'" in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--collection", "nope"], "nope"),
        (["--collection", "duc04", "--run", "nope"], "no run 'nope'"),
        (["--collection", "duc04", "--topic", "nope"], "no topic 'nope'"),
        (["--collection", "duc04", "--reports", "--run", "bm25"], "leave out --run"),
        (["--collection", "duc04", "--embedding", "--model", "x"], "--model: The embedding"),
        (["--collection", "duc04", "--k", "0"], "'k' must be an integer in 1..1000"),
    ],
)
def test_bad_arguments_are_command_errors(args, message):
    make_small_collection()
    with pytest.raises(CommandError, match=message):
        call_command("judge", *args, stdout=io.StringIO(), stderr=io.StringIO())
