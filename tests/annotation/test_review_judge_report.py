"""PPI in the judge report takes an adjudicated reference as the human side, whichever side
it is put on."""

import io
import json

import pytest
from django.core.management import call_command

from crux_app.models import Judge
from tests.evaluation.judge_report.two_judges import make_two_judges

pytestmark = pytest.mark.django_db


def _report(*judges: str) -> dict:
    out = io.StringIO()
    call_command(
        "judge_report",
        "--collection",
        "twojudges",
        "--resamples",
        "50",
        "--judges",
        *judges,
        "--metric",
        "ndcg",
        "--k",
        "3",
        stdout=out,
    )
    return json.loads(out.getvalue())


def test_adjudicated_labels_are_the_reference_of_ppi():
    make_two_judges()
    as_person = _report("llm-judge", "people")
    Judge.objects.filter(name="people").update(kind=Judge.Kind.ADJUDICATED)
    adjudicated = _report("people", "llm-judge")  # the reference put on side A
    assert adjudicated["meta"]["reference"] == "people"
    assert adjudicated["ppi"]["reference"] == "people"
    assert adjudicated["ppi"]["judge"] == "llm-judge"
    assert not any("not exactly one" in n for n in adjudicated["meta"]["notes"])
    assert adjudicated["ppi"]["labelled_topics"] == as_person["ppi"]["labelled_topics"]
    assert len(adjudicated["ppi"]["runs"]) == 4
    # The same gold labels and predictions: the same PPI figures per run.
    assert adjudicated["ppi"]["runs"] == as_person["ppi"]["runs"]
