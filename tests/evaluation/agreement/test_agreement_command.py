"""manage.py agreement: output shapes and formats, and clear errors for bad input."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Campaign
from crux_app.models import Judge, Judgment
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic

pytestmark = pytest.mark.django_db
RECORD_KEYS = {"task", "statistic", "value", "ci_low", "ci_high", "n", "undefined", "judges"}


@pytest.fixture
def collection():
    collection = make_collection("cmd")
    topic = make_topic(collection, "t1", n_subquestions=3)
    passages = make_passages(collection, "t1", 4)
    judges = [make_judge("llm"), make_judge("h1", kind=Judge.Kind.HUMAN)]
    judges.append(make_judge("h2", kind=Judge.Kind.HUMAN))
    ratings = {"llm": [5, 4, 1, 0], "h1": [5, 3, 0, 0], "h2": [4, 3, 2, 0]}
    Judgment.objects.bulk_create(
        Judgment(
            judge=j,
            topic=topic,
            subquestion=sq,
            passage=p,
            task="passage_rating",
            rating=(ratings[j.name][i] + sq.position) % 6,
        )
        for j in judges
        for sq in topic.subquestions.all()
        for i, p in enumerate(passages)
    )
    return collection


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("agreement", *args, "--resamples", "50", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_json_has_the_three_record_lists(collection):
    data = json.loads(run("--collection", "cmd")[0])
    for key in ("inter_annotator", "human_vs_llm", "report_coverage"):
        assert isinstance(data[key], list)
    assert data["inter_annotator"] and data["human_vs_llm"]
    for record in data["inter_annotator"] + data["human_vs_llm"]:
        assert record.keys() >= RECORD_KEYS
        assert (record["value"] is None) == (record["undefined"] is not None)
    kappa = next(r for r in data["human_vs_llm"] if r["statistic"] == "cohen_kappa_quadratic")
    assert kappa["n"] == 12 and kappa["judges"] == ["llm", "h1", "h2"]
    assert data["meta"]["bootstrap"]["resamples"] == 50 and data["meta"]["tau"] == 3.0


def test_tau_changes_the_thresholded_figures(collection):
    at = {}
    for tau in ("2", "4"):
        data = json.loads(run("--collection", "cmd", "--tau", tau)[0])
        at[tau] = next(
            r
            for r in data["human_vs_llm"]
            if r["statistic"] == "cohen_kappa_at_tau" and r["reference"] == "h1"
        )
    assert at["2"]["tau"] == 2.0 and at["4"]["tau"] == 4.0
    assert at["2"]["value"] != at["4"]["value"]


def test_csv_has_one_row_per_figure(collection):
    text = run("--collection", "cmd", "--format", "csv", "--judge", "h1", "--judge", "llm")[0]
    rows = list(csv.DictReader(io.StringIO(text)))
    sections = {r["section"] for r in rows}
    assert {"inter_annotator", "per_annotator", "human_vs_llm"} <= sections
    assert all("h2" not in r["judges"] for r in rows)
    undefined = [r for r in rows if r["undefined"]]
    assert undefined and all(r["value"] == "" for r in undefined)


def test_html_written_to_a_file(collection, tmp_path):
    path = tmp_path / "report.html"
    _, err = run("--collection", "cmd", "--format", "html", "--out", str(path))
    assert "wrote" in err and path.read_text().startswith("<!doctype html>")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--collection", "nope"], "collection 'nope' does not exist; collections: 'cmd'"),
        (["--collection", "cmd", "--judge", "gpt"], "judge 'gpt' has no judgments"),
        (["--collection", "cmd", "--tau", "0"], "--tau: option 'tau' must be a number in 0.5..5"),
        (["--collection", "cmd", "--out", "/nonexistent/dir/x.json"], "cannot write"),
        (["--collection", "cmd", "--campaign", "nope"], "campaign 'nope' does not exist"),
    ],
)
def test_bad_input_is_a_clear_error(collection, args, message):
    with pytest.raises(CommandError) as error:
        run(*args)
    assert message in str(error.value)


def test_campaign_filter(collection):
    Campaign.objects.create(
        name="Wave 1", slug="wave-1", collection=collection, task_type="passage_rating"
    )
    out, err = run("--collection", "cmd", "--campaign", "wave-1")
    meta = json.loads(out)["meta"]
    assert meta["campaign"]["applied"] is True and meta["campaign"]["name"] == "Wave 1"
    assert "campaign 'Wave 1'" in err
    # Nobody labelled in the campaign yet: no item is in scope.
    assert all(t["n_items"] == 0 for t in meta["tasks"])
