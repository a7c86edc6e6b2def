"""The agreement report on hand-made collections: label tables, judge selection, per-annotator
figures, report-level coverage on a shared answerable set, disagreements, sources."""

import numpy as np
import pytest
from django.utils import timezone
from scipy.stats import kendalltau, spearmanr

from annotation.models import Assignment, Campaign, CampaignItem
from annotation.workspace.submission import mirror_judgments
from crux_app.inputs import EvaluationInputError
from crux_app.models import Judge, Judgment
from evaluation.agreement.label_tables import ComparisonSource, LabelQuery, Scale, resolve_raters
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.agreement.report_export import to_dict
from evaluation.agreement.sources import COMPARISON_SOURCES, sources
from evaluation.crux.agreement_sources import load_judgment_table
from tests.crux_app.factories import (
    make_collection,
    make_judge,
    make_output,
    make_passages,
    make_qrels,
    make_topic,
)

pytestmark = pytest.mark.django_db
FAST = AgreementOptions(bootstrap=Bootstrap(50))


def judge(j, sq, rating, *, passage=None, output=None, time=None, raw=""):
    task = "passage_rating" if passage is not None else "report_coverage"
    return Judgment(
        judge=j,
        topic=sq.topic,
        subquestion=sq,
        passage=passage,
        output=output,
        task=task,
        rating=rating,
        time_spent_ms=time,
        raw_output=raw,
    )


@pytest.fixture
def setup():
    collection = make_collection("agree")
    t1 = make_topic(collection, "t1", n_subquestions=4, placeholders=[3])
    t2 = make_topic(collection, "t2", n_subquestions=3)
    passages = make_passages(collection, "t1", 3)
    make_qrels(t1, {passages[0]: 3})
    judges = {
        "llm": make_judge("llm"),
        "h1": make_judge("h1", kind=Judge.Kind.HUMAN),
        "h2": make_judge("h2", kind=Judge.Kind.HUMAN),
    }
    return collection, (list(t1.subquestions.all()), list(t2.subquestions.all())), passages, judges


def table(collection, source_key, tau=3, names=()):
    source = next(s for s in sources() if s.key == source_key)
    query = LabelQuery(collection, tuple(resolve_raters(collection, names)), tau)
    return load_judgment_table(query, source)


def test_label_table_skips_placeholders_and_counts_unparsable(setup):
    collection, (sq1, _), p, j = setup
    Judgment.objects.bulk_create(
        [
            judge(j["llm"], sq1[0], 4, passage=p[0]),
            judge(j["llm"], sq1[1], None, passage=p[0], raw="no idea"),
            judge(j["llm"], sq1[3], 2, passage=p[0]),  # placeholder position
            judge(j["h1"], sq1[0], 5, passage=p[0], time=3000),
            judge(j["h1"], sq1[3], 1, passage=p[0]),
        ]
    )
    t = table(collection, "passage_rating")
    assert [r.name for r in t.raters] == ["llm", "h1"]
    assert t.n_items == 1 and t.unparsable == {"llm": 1}
    assert t.ratings.tolist() == [[4.0, 5.0]] and np.isnan(t.times[0, 0]) and t.times[0, 1] == 3000
    assert t.frame().loc[(sq1[0].pk, p[0].pk), "h1"] == 5


def test_llm_report_ratings_on_0_5_are_cut_at_tau(setup):
    collection, (sq1, _), p, j = setup
    report = make_output(sq1[0].topic, "bm25", p[:1])
    Judgment.objects.bulk_create(
        [
            judge(j["llm"], sq1[0], 4, output=report),
            judge(j["llm"], sq1[1], 2, output=report),
            judge(j["h1"], sq1[0], 1, output=report),
            judge(j["h1"], sq1[1], 0, output=report),
        ]
    )
    t = table(collection, "report_coverage", tau=3)
    assert t.binarised == {"llm": 3} and t.item_kind == "output"
    by_sq = dict(zip(t.subquestion_id.tolist(), t.ratings.tolist(), strict=True))
    assert by_sq == {sq1[0].pk: [1.0, 1.0], sq1[1].pk: [0.0, 0.0]}


def test_judge_selection_restricts_the_named_side_only(setup):
    collection, (sq1, _), p, j = setup
    other = make_judge("llm-2", prompt_version="v2")
    Judgment.objects.bulk_create(
        [judge(x, sq1[0], 3, passage=p[0]) for x in (j["llm"], j["h1"], j["h2"], other)]
    )
    assert [r.name for r in resolve_raters(collection)] == ["llm", "llm-2", "h1", "h2"]
    assert [r.name for r in resolve_raters(collection, ["llm-2"])] == ["llm-2", "h1", "h2"]
    assert [r.name for r in resolve_raters(collection, ["h2"])] == ["llm", "llm-2", "h2"]
    with pytest.raises(EvaluationInputError, match="judge 'zed'.*'h1', 'h2', 'llm', 'llm-2'"):
        resolve_raters(collection, ["zed"])


def test_per_annotator_majority_time_and_gold(setup):
    collection, (sq1, sq2), p, j = setup
    h3 = make_judge("h3", kind=Judge.Kind.HUMAN)
    report = make_output(sq1[0].topic, "bm25", p[:1])
    # Item a: 1, 1, 0; item b: 0, 1, 1; item c: 1, 1, 1.
    labels = {sq1[0]: (1, 1, 0), sq1[1]: (0, 1, 1), sq1[2]: (1, 1, 1)}
    Judgment.objects.bulk_create(
        judge(h, sq, v, output=report, time=1000 * (i + 1))
        for i, (sq, values) in enumerate(labels.items())
        for h, v in zip((j["h1"], j["h2"], h3), values, strict=True)
    )
    report_ = build_report(collection, FAST)
    figures = {
        (r.stat.statistic, r.extra["annotator"]): r.stat
        for r in report_.per_annotator
        if r.task == "report_coverage"
    }
    # h1: item a is a tie among the others (left out), b fails, c agrees.
    h1 = figures[("agreement_with_majority", "h1")]
    assert (h1.value, h1.n) == (0.5, 2) and "1 item(s)" in h1.note
    assert figures[("agreement_with_majority", "h2")].value == 1.0
    assert figures[("items", "h3")].value == 3
    assert figures[("median_time_ms", "h1")].value == 2000
    gold = figures[("gold_accuracy", "h1")]
    assert gold.value is None and "no gold items" in gold.undefined


def test_without_humans_the_figures_say_why(setup):
    collection, (sq1, _), p, j = setup
    Judgment.objects.bulk_create([judge(j["llm"], sq1[0], 3, passage=p[0])])
    report = build_report(collection, FAST)
    record = next(r for r in report.human_vs_llm if r.task == "passage_rating")
    assert record.stat.value is None and record.stat.undefined == "no human labelled this task"
    inter = [r for r in report.inter_annotator if r.task == "passage_rating"]
    assert inter and all("fewer than 2 human annotators" in r.stat.undefined for r in inter)


def test_report_coverage_uses_the_llms_answerable_set_for_humans_and_llm(setup):
    collection, (sq1, sq2), p, j = setup
    # t1: the LLM finds sub-questions 0 and 2 answerable in the required passage p0 (1 is
    # answered only by p1, which is not required): A = {0, 2}. t2: the LLM rated no passage,
    # so A = its 3 sub-questions.
    Judgment.objects.bulk_create(
        [judge(j["llm"], sq, r, passage=p[0]) for sq, r in zip(sq1[:3], (4, 1, 3), strict=True)]
        + [judge(j["llm"], sq1[1], 5, passage=p[1])]
    )
    reports = {
        "r1": (sq1, {"h1": (1, 0, 1), "h2": (1, 1, 0), "llm": (1, 1, 1)}),
        "r2": (sq1, {"h1": (0, 1, 0), "h2": (0, 0), "llm": (0, 1, 1)}),  # h2 skips q2
        "r3": (sq2, {"h1": (1, 1, 0), "h2": (1, 0, 0), "llm": (1, 0, 1)}),
        "r4": (sq2, {"h1": (0, 0, 0), "h2": (0, 0, 1), "llm": (0, 0, 0)}),
    }
    rows = []
    for system, (sqs, by_judge) in reports.items():
        output = make_output(sqs[0].topic, system, p[:1])
        for name, values in by_judge.items():
            rows += [
                judge(j[name], sq, v, output=output) for sq, v in zip(sqs, values, strict=False)
            ]
    Judgment.objects.bulk_create(rows)
    report = build_report(collection, FAST)
    points = {pt.system: pt for pt in report.coverage_points}
    human = [0.75, 0.0, 0.5, 1 / 6]  # r2: h2 left q2 of A unlabelled, so only h1 counts
    machine = [1.0, 0.5, 2 / 3, 0.0]
    for system, h, m in zip(reports, human, machine, strict=True):
        assert points[system].human == pytest.approx(h)
        assert points[system].machine == pytest.approx(m)
    assert points["r2"].n_humans == 1 and points["r1"].n_humans == 2
    assert [points[s].answerable for s in reports] == [2, 2, 3, 3]
    records = {
        r.stat.statistic: r
        for r in report.report_coverage
        if r.extra["reference"] == "humans (mean)"
    }
    assert records["spearman"].value == pytest.approx(spearmanr(human, machine).statistic)
    assert records["kendall_tau_b"].value == pytest.approx(kendalltau(human, machine).statistic)
    assert records["spearman"].extra["topics_with_all_subquestions"] == 1
    note = "humans: coverage undefined for 1 of 8 (a sub-question of A left unlabelled: 1)"
    assert records["spearman"].stat.note == note


def test_disagreements_worst_first_with_texts(setup):
    collection, (sq1, _), p, j = setup
    Judgment.objects.bulk_create(
        [
            judge(j["h1"], sq1[0], 0, passage=p[0]),
            judge(j["llm"], sq1[0], 5, passage=p[0], raw="Rating: 5"),
            judge(j["h1"], sq1[2], 3, passage=p[0]),
            judge(j["llm"], sq1[2], 5, passage=p[0]),
            judge(j["h1"], sq1[1], 2, passage=p[0]),
            judge(j["llm"], sq1[1], 4, passage=p[0]),
            judge(j["h1"], sq1[1], 1, passage=p[1]),
            judge(j["llm"], sq1[1], 1, passage=p[1]),
        ]
    )
    rows = build_report(collection, FAST).disagreements
    assert [(d.position, d.difference, d.crosses_tau) for d in rows] == [
        (0, 5, True),
        (1, 2, True),
        (2, 2, False),
    ]
    first = rows[0]
    assert first.question == sq1[0].text and first.item_text.startswith("Passage 0 of t1")
    assert (first.reference, first.judge, first.judge_rationale) == ("h1", "llm", "Rating: 5")


def campaign(collection, name, answers, gold):
    """A passage-rating campaign: ``answers`` {(sq, passage): {user: rating}}, mirrored as
    judgments as the workspace does; ``gold`` {(sq, passage): gold rating}."""
    c = Campaign.objects.create(
        name=name, slug=name, collection=collection, task_type="passage_rating"
    )
    now = timezone.now()
    for (sq, passage), by_user in answers.items():
        item = CampaignItem.objects.create(
            campaign=c,
            kind="passage_rating",
            topic=sq.topic,
            subquestion=sq,
            passage=passage,
            is_gold=(sq, passage) in gold,
            gold_answer={"rating": gold[(sq, passage)]} if (sq, passage) in gold else None,
        )
        for user, rating in by_user.items():
            assignment = Assignment.objects.create(
                campaign=c,
                item=item,
                annotator=user,
                state="submitted",
                reserved_at=now,
                reserved_until=now,
                answer={"rating": rating},
                time_spent_ms=1500,
                submitted_at=now,
            )
            mirror_judgments(assignment)
    return c


def test_campaign_scope_and_gold_accuracy(setup, django_user_model):
    collection, (sq1, _), p, j = setup
    u1 = django_user_model.objects.create_user("ann-1")
    u2 = django_user_model.objects.create_user("ann-2")
    # The LLM rates 6 items, an imported annotator one more; the campaign has 3 items.
    Judgment.objects.bulk_create(
        [judge(j["llm"], sq, (sq.position + i) % 6, passage=p[i]) for sq in sq1[:3] for i in (0, 1)]
        + [judge(j["h1"], sq1[1], 2, passage=p[0])]
    )
    answers = {
        (sq1[0], p[0]): {u1: 4, u2: 2},  # gold 5, tolerance 1: u1 right, u2 wrong
        (sq1[1], p[0]): {u1: 3, u2: 3},
        (sq1[2], p[1]): {u1: 0, u2: 1},
    }
    campaign(collection, "wave-1", answers, gold={(sq1[0], p[0]): 5})
    report = build_report(collection, AgreementOptions(campaign="wave-1", bootstrap=Bootstrap(0)))
    assert report.campaign.applied and "2 annotator(s)" in report.notes[0]
    task = next(t for t in report.tasks if t.key == "passage_rating")
    assert task.n_items == 3
    assert task.labels == {"llm": 3, "user:ann-1": 3, "user:ann-2": 3}
    gold = {
        r.extra["annotator"]: r.stat
        for r in report.per_annotator
        if r.stat.statistic == "gold_accuracy" and r.task == "passage_rating"
    }
    assert gold["user:ann-1"].value == 1.0 and gold["user:ann-2"].value == 0.0
    assert gold["user:ann-1"].n == 1
    # Without the campaign: every judgment, the imported annotator too, the same gold scores.
    everything = build_report(collection, AgreementOptions(bootstrap=Bootstrap(0)))
    labels = next(t for t in everything.tasks if t.key == "passage_rating").labels
    assert labels["llm"] == 6 and labels["h1"] == 1
    h1_gold = next(
        r.stat
        for r in everything.per_annotator
        if r.extra["annotator"] == "h1" and r.stat.statistic == "gold_accuracy"
    )
    assert h1_gold.value is None and "no gold item" in h1_gold.undefined


def test_unknown_campaign_is_an_error_listing_the_campaigns(setup):
    collection, (sq1, _), p, j = setup
    Campaign.objects.create(
        name="wave-1", slug="wave-1", collection=collection, task_type="passage_rating"
    )
    with pytest.raises(EvaluationInputError, match="campaign 'wave-9' does not exist.*'wave-1'"):
        build_report(collection, AgreementOptions(campaign="wave-9"))


def test_every_comparison_source_is_wired_and_a_pending_one_says_why(setup):
    collection = setup[0]
    meta = to_dict(build_report(collection, FAST))["meta"]
    available = {s["key"] for s in meta["sources"] if s["available"]}
    assert available == {
        "passage_rating",
        "report_coverage",
        "answer_equivalence",
        "dense_correctness",
        "dense_rephrase",
        "dense_response",
        "failure_category",
        "nugget_assignment",
    }
    COMPARISON_SOURCES.register(
        ComparisonSource("later", "Later", Scale.BINARY, "m", (0.0, 1.0), (), None, "why")
    )
    try:
        meta = to_dict(build_report(collection, FAST))["meta"]
    finally:
        COMPARISON_SOURCES.unregister("later")
    pending = {s["key"]: s for s in meta["sources"] if not s["available"]}
    assert set(pending) == {"later"} and pending["later"]["unavailable"] == "why"
    with pytest.raises(ValueError, match="loader"):
        COMPARISON_SOURCES.register(ComparisonSource("x", "X", Scale.BINARY, "m", (0.0, 1.0), ()))
