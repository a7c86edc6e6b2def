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
