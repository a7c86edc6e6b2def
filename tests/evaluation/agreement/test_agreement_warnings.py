"""The agreement page, its HTML report and its command say when a judge's labels are nearly
constant or unparsable and when its agreement with the humans is within chance; an informative
judge (here: one that gives every item the annotator's rating) gets no warning."""

import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaluation.agreement.judge_warnings import chance_warnings
from evaluation.agreement.method.bootstrap import Bootstrap
from evaluation.agreement.method.label_agreement import Stat
from evaluation.agreement.report import AgreementOptions, build_report
from evaluation.agreement.report_rows import Record
from tests.evaluation.crux.degenerate_collection import (
    BROKEN,
    FLAT,
    HUMAN,
    SPREAD,
    make_flat_collection,
)

pytestmark = pytest.mark.django_db
FAST = AgreementOptions(judges=(FLAT, SPREAD, BROKEN, HUMAN), bootstrap=Bootstrap(n_resamples=200))


@pytest.fixture
def flat():
    return make_flat_collection()


def by_judge(html: str) -> dict[tuple[str, str], str]:
    """(judge, kind) -> the warning's text."""
    items = re.findall(
        r'<li class="judge-warning" data-kind="([^"]+)" data-judge="([^"]+)">(.*?)</li>', html, re.S
    )
    return {(judge, kind): re.sub(r"<[^>]+>", "", body) for kind, judge, body in items}


def test_the_page_warns_about_the_degenerate_judges_only(researcher_client, flat):
    url = reverse("agreement", args=[flat.collection.pk])
    query = {"judge": [FLAT, SPREAD, BROKEN, HUMAN], "resamples": 200}
    html = researcher_client.get(url, query).content.decode()
    found = by_judge(html)
    assert (
        "flat-llm gave 4 to 29 of 30 items of task passage_rating (97%)"
        in (found[(FLAT, "constant_ratings")])
    )
    chance = found[(FLAT, "chance_agreement")]
    assert "flat-llm vs annotator (task passage_rating)" in chance
    assert "Cohen&#x27;s κ (answerable at τ) = 0.000 [0.000, 0.000] on 30 items" in chance
    unparsable = found[(BROKEN, "unparsable_outputs")]
    assert "4 of 6 outputs of broken-llm of task passage_rating (67%)" in unparsable
    assert not [key for key in found if key[0] in (SPREAD, HUMAN)]
    # Links stay inside the report, and the figures the warnings are about are still shown.
    assert 'href="#human-vs-llm"' in html and 'href="#agreement-tasks"' in html
    assert 'id="human-vs-llm"' in html and 'id="agreement-tasks"' in html


def test_the_html_report_and_the_json_carry_the_warnings(flat):
    report = build_report(flat.collection, FAST)
    kinds = {(w.judge, w.kind) for w in report.warnings}
    assert (FLAT, "constant_ratings") in kinds and (FLAT, "chance_agreement") in kinds
    assert not [k for k in kinds if k[0] == SPREAD]
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "agreement", "--collection", "flat", "--resamples", "200", "--format", "html",
        stdout=out, stderr=err,
    )  # fmt: skip
    html = out.getvalue()
    assert "judge-warnings" in html and "flat-llm gave 4 to 29 of 30 items" in html
    assert "warning (nearly constant): flat-llm gave 4 to 29 of 30 items" in err.getvalue()
    out = io.StringIO()
    call_command("agreement", "--collection", "flat", "--resamples", "200", stdout=out)
    warnings = json.loads(out.getvalue())["meta"]["warnings"]
    assert {"kind", "judge", "message", "figures"} == set(warnings[0])
    assert any(w["judge"] == FLAT and w["kind"] == "chance_agreement" for w in warnings)


def record(judge: str, reference: str, statistic: str, low: float, high: float) -> Record:
    stat = Stat(statistic, (low + high) / 2, low, high, 40)
    return Record(
        "passage_rating", stat, (judge, reference), {"judge": judge, "reference": reference}
    )


def test_chance_is_read_on_the_main_reference_and_chance_corrected_figures_only():
    records = [
        record("j", "humans (pooled)", "cohen_kappa_at_tau", 0.3, 0.6),
        record("j", "ann1", "cohen_kappa_at_tau", -0.1, 0.4),  # not the main reference
        record("j", "humans (pooled)", "percent_agreement", -0.1, 0.9),  # no chance level 0
        record("k", "ann1", "spearman", -0.2, 0.3),  # the only reference
    ]
    (warning,) = chance_warnings(records)
    assert warning.judge == "k" and "Spearman ρ = 0.050 [-0.200, 0.300] on 40 items" in (
        warning.message
    )
