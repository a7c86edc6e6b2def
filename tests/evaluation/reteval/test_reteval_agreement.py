"""LLM-retEval beside the rest of the app: the 'failure_category' agreement source (humans of
annotation task 4 vs the pre-labels), the leaderboard column and the ``reteval`` command."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, CampaignItem
from annotation.workspace.submission import submit
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.agreement.sources import sources
from evaluation.leaderboard.columns import LeaderboardParams, column_values, columns
from evaluation.reteval.failures import category_counts, create_failure_campaign, failure_rows
from evaluation.reteval.models import RetEvalResult
from tests.annotation.campaign_data import make_annotator
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario

pytestmark = pytest.mark.django_db


def _label(campaign, user, topic: str, category: str) -> None:
    item = CampaignItem.objects.get(campaign=campaign, payload__topic=topic)
    now = timezone.now()
    # A reservation as the queue makes one, then the real submission path.
    CampaignItem.objects.filter(pk=item.pk).update(reserved_count=F("reserved_count") + 1)
    assignment = Assignment.objects.create(
        campaign=campaign, item=item, annotator=user, reserved_at=now, reserved_until=now
    )
    submit(assignment, {"category": category}, time_spent_ms=1500)


def _labelled():
    data = make_reteval_collection()
    run_scenario(data)
    judge = RetEvalResult.objects.first().judge
    campaign = create_failure_campaign(data.collection, judge, data.run, 2, None)
    ann, bob = make_annotator("ann"), make_annotator("bob")
    _label(campaign, ann, "q2", "C")
    _label(campaign, ann, "q3", "A")
    _label(campaign, bob, "q2", "C")
    _label(campaign, bob, "q3", "B")
    return data, judge, campaign


def _stat(records, statistic, judges):
    return next(r for r in records if r.statistic == statistic and tuple(r.judges) == judges)


def test_the_agreement_report_compares_humans_with_the_prelabels():
    data, judge, _ = _labelled()
    source = next(s for s in sources() if s.key == "failure_category")
    assert source.available and source.scale.value == "nominal"
    report = build_report(data.collection, AgreementOptions())
    task = next(t for t in report.tasks if t.key == "failure_category")
    machine = f"reteval-prelabel:{judge}"
    # Items: the k=2 answers of q2 and q3 (labelled) and the k=1 answer of q3 (pre-label only).
    assert task.n_items == 3
    assert task.labels == {"user:ann": 2, "user:bob": 2, machine: 3}
    records = [r for r in report.human_vs_llm if r.task == "failure_category"]
    pooled = _stat(records, "percent_agreement", (machine, "user:ann", "user:bob"))
    assert pooled.value == pytest.approx(3 / 4)
    assert _stat(records, "cohen_kappa", (machine, "user:ann")).value == pytest.approx(1.0)
    # bob vs pre-labels: (C, C), (B, A): p_o = 1/2, p_e = 1/4, kappa = 1/3.
    assert _stat(records, "cohen_kappa", (machine, "user:bob")).value == pytest.approx(1 / 3)
    inter = [r for r in report.inter_annotator if r.task == "failure_category"]
    assert _stat(inter, "percent_agreement", ("user:ann", "user:bob")).value == pytest.approx(0.5)
    matrix = next(
        m for m in report.confusion if m.task == "failure_category" and m.reference == "user:bob"
    )
    assert matrix.labels[0].startswith("A ") and matrix.matrix[1][0] == 1  # bob B, machine A
    worst = [d for d in report.disagreements if d.task == "failure_category"]
    assert [(d.topic, d.reference_label, d.judge_label) for d in worst] == [("q3", 1.0, 0.0)]


def test_the_agreement_command_prints_real_failure_category_figures(tmp_path):
    data, judge, _ = _labelled()
    out = tmp_path / "agreement.json"
    call_command(
        "agreement", "--collection", data.collection.name, "--format", "json",
        "--resamples", "20", "--out", str(out),
    )  # fmt: skip
    report = json.loads(out.read_text())
    rows = [r for r in report["human_vs_llm"] if r["task"] == "failure_category"]
    kappa = [r for r in rows if r["statistic"] == "cohen_kappa" and r["reference"] == "user:ann"]
    assert kappa and kappa[0]["value"] == pytest.approx(1.0) and not kappa[0]["undefined"]
    source = next(s for s in report["meta"]["sources"] if s["key"] == "failure_category")
    assert source["available"] and source["unavailable"] is None


def test_confirmed_categories_are_counted_per_run_and_k():
    data, judge, _ = _labelled()
    counts = category_counts(failure_rows(data.collection, judge))
    at2 = next(c for c in counts if c.k == 2)
    assert (at2.prelabels["A"], at2.prelabels["C"]) == (1, 1)
    # q2: both said C; q3: A vs B is a tie, undecided.
    assert at2.confirmed["C"] == 1 and at2.confirmed_items == 1
    rows = failure_rows(data.collection, judge, data.run, 2)
    assert {r.result.topic.external_id: r.humans for r in rows}["q3"] == {"ann": "A", "bob": "B"}


def test_the_leaderboard_column_reads_stored_verdicts_at_its_k():
    data = make_reteval_collection()
    run_scenario(data)
    column = next(c for c in columns() if c.key == "llm_reteval")
    assert column.label_for(5) == "LLM-retEval@5"
    values = column_values(data.collection, LeaderboardParams(k=2), ["bm25", "other"])
    assert values["llm_reteval"] == {"bm25": pytest.approx(2 / 3), "other": None}
    at1 = column_values(data.collection, LeaderboardParams(k=1), ["bm25"])["llm_reteval"]
    assert at1 == {"bm25": pytest.approx(2 / 3)}  # q1 and q3 Yes
    assert column_values(data.collection, LeaderboardParams(k=10), ["bm25"])["llm_reteval"] == {
        "bm25": None
    }


def test_the_command_prints_the_table_as_json_csv_and_text(capsys):
    data = make_reteval_collection()
    run_scenario(data)
    call_command("reteval", "--collection", data.collection.name, "--run", "bm25",
                 "--k", "1", "2", "5", "--format", "json")  # fmt: skip
    table = json.loads(capsys.readouterr().out)
    assert table["judge"] == "test/judge"
    rows = {r["k"]: r for r in table["rows"]}
    assert rows[2]["llm_reteval"] == pytest.approx(2 / 3)
    assert rows[2]["recall"] == pytest.approx(2 / 3) and rows[1]["recall"] == pytest.approx(1 / 3)
    assert rows[2]["category_C"] == 1 and rows[2]["spearman_all_n"] == 3
    assert rows[5]["questions"] == 0 and rows[5]["llm_reteval"] is None
    call_command("reteval", "--collection", data.collection.name, "--format", "csv")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run,k,questions,recall,precision,f1,llm_reteval")
    assert len(lines) == 3
    call_command("reteval", "--collection", data.collection.name)
    text = capsys.readouterr().out
    assert "LLM-retEval@k" in text and "0.667" in text


def test_the_command_names_what_is_wrong():
    data = make_reteval_collection()
    with pytest.raises(CommandError, match="collection 'nope' does not exist"):
        call_command("reteval", "--collection", "nope")
    with pytest.raises(CommandError, match="--run: run 'bm26' does not exist"):
        call_command("reteval", "--collection", data.collection.name, "--run", "bm26")
    with pytest.raises(CommandError, match="--run: run 'bm26' does not exist"):
        call_command("reteval", "--collection", data.collection.name, "--run", "bm26", "--compute")
