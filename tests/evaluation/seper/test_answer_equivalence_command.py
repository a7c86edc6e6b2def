"""manage.py answer_equivalence on the small EVOUNA file, with a tiny NLI classifier."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaluation.backends import registry

pytestmark = pytest.mark.models

SMALL = Path(__file__).parent / "data" / "evouna_small.json"
MNLI_ORDER = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture
def tiny_nli_settings(settings, tiny_nli_factory):
    """The registry's NLI model is a tiny random classifier (fast; its decisions arbitrary)."""
    settings.NLI_MODEL = str(tiny_nli_factory(MNLI_ORDER))
    settings.MODEL_DEVICE = "cpu"
    registry.clear()
    yield settings
    registry.clear()


def run(*args: str) -> str:
    out = StringIO()
    call_command("answer_equivalence", *args, stdout=out)
    return out.getvalue()


def test_json_report_per_system(tiny_nli_settings):
    report = json.loads(run(str(SMALL), "--format", "json"))
    assert report["file"] == str(SMALL)
    assert report["nli_model"] == tiny_nli_settings.NLI_MODEL
    assert (report["records"], report["improper"], report["threshold"]) == (10, 2, 0.5)
    fid, gpt = report["systems"]
    assert (fid["system"], fid["n"], fid["unusable"]) == ("fid", 7, 1)
    assert (gpt["system"], gpt["n"], gpt["unusable"]) == ("gpt35", 5, 3)
    # Lexical scorers do not depend on the model: hand-computed in test_answer_equivalence.
    assert fid["lexical_match"] == {"f1": pytest.approx(8 / 9), "accuracy": pytest.approx(6 / 7)}
    assert gpt["exact_match"] == {"f1": 0.0, "accuracy": 0.6}
    for system in (fid, gpt):
        accuracy = system["entailment"]["accuracy"]
        assert 0 <= accuracy <= 1 and accuracy * system["n"] == pytest.approx(
            round(accuracy * system["n"])
        )


def test_threshold_zero_calls_everything_equivalent(tiny_nli_settings):
    report = json.loads(run(str(SMALL), "--threshold", "0"))
    fid = report["systems"][0]
    # All 7 predicted equivalent: 5 TP, 2 FP.
    assert fid["entailment"] == {"f1": pytest.approx(10 / 12), "accuracy": pytest.approx(5 / 7)}


def test_csv_report(tiny_nli_settings):
    lines = run(str(SMALL), "--format", "csv").splitlines()
    assert lines[0].startswith("system,n,unusable,entailment_f1,entailment_accuracy,")
    assert [line.split(",")[:3] for line in lines[1:]] == [["fid", "7", "1"], ["gpt35", "5", "3"]]


def test_bad_input_is_a_command_error(tmp_path, tiny_nli_settings):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"question": "q", "golden_answer": "a", "answer_x": 1, "judge_x": true}]')
    with pytest.raises(CommandError, match=r"bad.json: record 0, field 'answer_x'"):
        run(str(bad))
    with pytest.raises(CommandError, match="no such file"):
        run(str(tmp_path / "missing.json"))
    with pytest.raises(CommandError, match=r"--threshold must be a number in \[0, 1\]"):
        run(str(SMALL), "--threshold", "2")
