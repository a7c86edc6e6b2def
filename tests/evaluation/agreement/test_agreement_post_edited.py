"""Post-edited labels on the agreement page and in the judge report: listed under their own
kind, never pooled with blind human labels, compared with the LLM judges in a section of their
own (values computed by hand), and said to have seen the LLM's suggestion."""

import html

import pytest
from django.urls import reverse

from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.workspace.submission import submit
from crux_app.models import Judge
from evaluation.agreement.label_tables import resolve_raters
from evaluation.agreement.machine_agreement import POOLED, POST_EDITORS_POOLED
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.agreement.report_export import to_csv, to_dict
from evaluation.judge_report.method.ranking_agreement import Bootstrap as RankingBootstrap
from evaluation.judge_report.report import JudgeReportParams
from evaluation.judge_report.report import build_report as build_judge_report
from tests.annotation.campaign_data import make_annotator, make_campaign, report_collection
from tests.crux_app.factories import make_judge, rate_passages
from tests.evaluation.judge_report.two_judges import make_two_judges

pytestmark = pytest.mark.django_db
FAST = AgreementOptions(bootstrap=Bootstrap(0))
EDITED = "user:anna+post-edit"


def llm_rating(position: int, index: int) -> int:
    return (position + index) % 6


def index_of(item) -> int:
    return int(item.payload["passage_id"].rsplit("#", 1)[1])


@pytest.fixture
def labelled():
    """An LLM rated all 8 items; two blind annotators (bob, cy) and one post-editor (anna,
    who keeps 3 of her 4 suggestions and changes one by +1) labelled them in campaigns."""
    collection = report_collection()
    llm = make_judge("gpt-judge")
    topic = collection.topics.get()
    rate_passages(llm, topic, list(collection.passages.order_by("external_id")), llm_rating)
    anna, bob, cy = make_annotator("anna"), make_annotator("bob"), make_annotator("cy")
    blind = make_campaign(
        PASSAGE_RATING, collection=collection, annotators=[bob, cy], name="blind", overlap=2
    )
    for who in (bob, cy):
        while (held := queue.next_item(blind, who).assignment) is not None:
            submit(held, {"rating": 0, "rationale": ""})
    edited = make_campaign(
        PASSAGE_RATING,
        collection=collection,
        annotators=[anna],
        name="post-edit",
        overlap=1,
        suggestion_judge=llm,
    )
    for n in range(4):
        held = queue.next_item(edited, anna).assignment
        suggested = llm_rating(held.item.payload["position"], index_of(held.item))
        submit(held, {"rating": suggested if n < 3 else (suggested + 1) % 6, "rationale": ""})
    return collection, llm


def test_post_edited_judges_are_their_own_kind_beside_the_blind_ones(labelled):
    collection, _ = labelled
    raters = {r.name: r for r in resolve_raters(collection)}
    assert raters[EDITED].kind == Judge.Kind.POST_EDITED
    assert raters[EDITED].is_post_edited and not raters[EDITED].is_human
    assert not raters[EDITED].is_machine
    assert raters["user:bob"].is_human and raters["gpt-judge"].is_machine


def test_post_edited_labels_are_never_pooled_with_blind_ones(labelled):
    collection, _ = labelled
    report = build_report(collection, FAST)
    for section in (report.human_vs_llm, report.inter_annotator, report.per_annotator):
        assert section and all(EDITED not in r.judges for r in section)
    references = {r.extra["reference"] for r in report.human_vs_llm}
    assert references == {POOLED, "user:bob", "user:cy"}
    assert all(EDITED not in r.judges for r in report.judge_comparison)
    # Their own section: anna against the LLM she saw, nothing else.
    assert {r.extra["reference"] for r in report.post_edited_vs_llm} == {EDITED}
    assert {r.extra["judge"] for r in report.post_edited_vs_llm} == {"gpt-judge"}
    agreement = next(
        r.stat
        for r in report.post_edited_vs_llm
        if r.stat.statistic == "percent_agreement" and r.task == PASSAGE_RATING
    )
    # Kept 3 of 4 suggestions: the exact match on the 0-5 scale is 3 / 4.
    assert (agreement.value, agreement.n) == (0.75, 4)
    assert any(EDITED in n and "saw an LLM judge's suggestion" in n for n in report.notes)
    assert any("'post-edit' showed gpt-judge's labels" in n for n in report.notes)
    exported = to_dict(report)
    assert exported["post_edited_vs_llm"] and "post_edited" in exported["meta"]["definitions"]
    assert "post_edited_vs_llm" in to_csv(report)


def test_two_post_editors_are_pooled_only_with_each_other(labelled):
    collection, llm = labelled
    dan = make_annotator("dan")
    second = make_campaign(
        PASSAGE_RATING,
        collection=collection,
        annotators=[dan],
        name="post-edit-2",
        overlap=1,
        suggestion_judge=llm,
    )
    held = queue.next_item(second, dan).assignment
    submit(held, {"rating": 5, "rationale": ""})
    report = build_report(collection, FAST)
    references = {r.extra["reference"] for r in report.post_edited_vs_llm}
    assert references == {POST_EDITORS_POOLED, EDITED, "user:dan+post-edit"}
    assert {r.extra["reference"] for r in report.human_vs_llm} == {POOLED, "user:bob", "user:cy"}


def test_the_campaign_scope_of_a_post_editing_campaign_reads_its_post_edit_judges(labelled):
    collection, _ = labelled
    report = build_report(
        collection, AgreementOptions(campaign="post-edit", bootstrap=Bootstrap(0))
    )
    task = next(t for t in report.tasks if t.key == PASSAGE_RATING)
    # The campaign's 8 items: anna labelled 4 of them, the LLM all; the blind annotators' labels
    # of other campaigns are out.
    assert task.labels == {EDITED: 4, "gpt-judge": 8} and task.n_items == 8
    assert "a post-editing campaign" in report.notes[0]


def test_the_agreement_page_lists_post_edited_labels_apart(labelled, researcher_client):
    collection, _ = labelled
    response = researcher_client.get(reverse("agreement", args=[collection.pk]), {"resamples": 0})
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "human (post-edited)" in page
    assert "saw the LLM's suggestion: not blind, kept apart" in page
    assert 'id="post-edited-vs-llm"' in page and 'data-reference="user:anna+post-edit"' in page
    blind_section = page.split('id="human-vs-llm"')[1].split("</section>")[0]
    assert EDITED not in blind_section


def test_the_judge_report_says_post_edited_labels_saw_the_suggestion():
    data = make_two_judges()
    Judge.objects.filter(pk=data.human.pk).update(name=EDITED, kind=Judge.Kind.POST_EDITED)
    params = JudgeReportParams("llm-judge", EDITED, bootstrap=RankingBootstrap(0))
    report = build_judge_report(data.collection, params)
    assert report.judge_b.kind == Judge.Kind.POST_EDITED
    assert report.judge_b.kind_label == "human (post-edited)"
    assert any("holds post-edited labels" in n for n in report.notes)
