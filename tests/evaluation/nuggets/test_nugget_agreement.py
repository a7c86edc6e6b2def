"""The 'nugget_assignment' agreement source: a person's assignments against an LLM's on the
same (nugget, answer) items, once the nuggets are linked to sub-questions."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from crux_app.models import Collection
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.agreement.sources import sources
from tests.evaluation.nuggets.nugget_files import ASSIGNMENTS, write_lines
from tests.evaluation.nuggets.test_nugget_imports import NAME, load_all

pytestmark = pytest.mark.django_db


def test_the_agreement_report_compares_a_person_with_the_llm(tmp_path):
    load_all(tmp_path)  # the LLM judge "gpt"
    human = json.loads(json.dumps(ASSIGNMENTS))
    human[2]["nuggets"][1]["assignment"] = "support"  # gpt: partial_support
    call_command(
        "import_nugget_assignments", "--collection", NAME, "--judge", "amy", "--kind", "human",
        write_lines(tmp_path / "amy.jsonl", human), stdout=StringIO(),
    )  # fmt: skip
    source = next(s for s in sources() if s.key == "nugget_assignment")
    assert source.available and source.scale.value == "nominal"
    collection = Collection.objects.get(name=NAME)
    before = build_report(collection, AgreementOptions())
    assert next(t for t in before.tasks if t.key == "nugget_assignment").n_items == 0

    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())
    report = build_report(collection, AgreementOptions())

    task = next(t for t in report.tasks if t.key == "nugget_assignment")
    assert task.n_items == 7 and task.labels == {"amy": 7, "gpt": 7}
    records = [r for r in report.human_vs_llm if r.task == "nugget_assignment"]
    agreement = next(r for r in records if r.statistic == "percent_agreement")
    assert agreement.value == pytest.approx(6 / 7)
    # gpt: 2 support, 2 partial, 3 not; amy: 3, 1, 3: p_e = (6 + 2 + 9) / 49, kappa = 25 / 32.
    kappa = next(r for r in records if r.statistic == "cohen_kappa")
    assert kappa.value == pytest.approx(25 / 32)


def test_post_edited_nugget_assignments_are_kept_apart_from_blind_ones(tmp_path):
    """A post-editing campaign over nugget assignments (annotators shown the LLM's label):
    its labels go to the annotator's post-edit judge, compared with the LLM in their own
    section, never pooled with the blind person's."""
    from annotation.labels.post_editing import suggestion_for
    from annotation.queue import queue
    from annotation.workspace.submission import submit
    from crux_app.models import Judge
    from evaluation.nuggets.assignment_task import TASK_KEY
    from tests.annotation.campaign_data import make_annotator, make_campaign

    load_all(tmp_path)  # the LLM judge "gpt"
    call_command(
        "import_nugget_assignments", "--collection", NAME, "--judge", "amy", "--kind", "human",
        write_lines(tmp_path / "amy.jsonl", ASSIGNMENTS), stdout=StringIO(),
    )  # fmt: skip
    call_command("subquestions_from_nuggets", "--collection", NAME, stdout=StringIO())
    collection = Collection.objects.get(name=NAME)
    anna = make_annotator("anna")
    campaign = make_campaign(
        TASK_KEY,
        collection=collection,
        annotators=[anna],
        overlap=1,
        suggestion_judge=Judge.objects.get(name="gpt"),
    )
    n = 0
    while (held := queue.next_item(campaign, anna).assignment) is not None:
        shown = suggestion_for(campaign, held)  # the LLM's label, as the workspace shows it
        assert shown is not None and shown["assignment"] in (
            "support",
            "partial_support",
            "not_support",
        )
        submit(held, dict(shown))  # kept
        n += 1
    assert n == 7

    report = build_report(collection, AgreementOptions())
    task = next(t for t in report.tasks if t.key == "nugget_assignment")
    assert task.labels == {"amy": 7, "gpt": 7, "user:anna+post-edit": 7}
    assert all(
        "user:anna+post-edit" not in r.judges
        for r in (*report.human_vs_llm, *report.inter_annotator, *report.per_annotator)
    )
    edited = [r for r in report.post_edited_vs_llm if r.task == "nugget_assignment"]
    agreement = next(r for r in edited if r.stat.statistic == "percent_agreement")
    assert agreement.stat.value == 1.0  # every suggestion kept
