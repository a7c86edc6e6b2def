"""Qrels uploaded from the browser: the upload page shows the qrels format's declared fields
(judge, kind, model id, prompt version) when it is chosen, and the import job stores the file's
rows as that judge's qrels."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from crux_app.dataio.catalog import IMPORT_FORMATS
from crux_app.models import Judge, PassageQrel
from tests.crux_app.trec_inputs import trec_files

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def eager(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.CELERY_TASK_ALWAYS_EAGER = True


def test_a_qrels_file_uploaded_in_the_browser_becomes_the_judges_qrels(
    researcher, login, page_errors, live_server, tmp_path
):
    files = trec_files(tmp_path / "trec")
    IMPORT_FORMATS["topics"].importer("trec", files["topics"])
    IMPORT_FORMATS["passages"].importer("trec", files["passages"])
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("upload"))

    page.select_option("#id_format", "qrels")
    for name in ("judge", "judge_kind", "model_id", "prompt_version", "add_missing_passages"):
        expect(page.locator(f'.param[data-name="{name}"]')).to_be_visible()
    for name in ("split", "tau", "run_name"):
        expect(page.locator(f'.param[data-name="{name}"]')).to_be_hidden()

    page.fill("#id_collection", "trec")
    page.fill("#id_judge", "nist")
    page.select_option("#id_judge_kind", "human")
    page.set_input_files("#id_file", str(files["nist"]))
    page.click("#upload-form button[type=submit]")

    expect(page.locator("body")).to_contain_text("imports them")
    judge = Judge.objects.get(name="nist")
    assert judge.kind == "human"
    grades = {
        (q.topic.external_id, q.passage.external_id): q.grade
        for q in PassageQrel.objects.filter(source="nist").select_related("topic", "passage")
    }
    assert grades == {
        ("101", "d0"): 2, ("101", "d1"): 0, ("101", "d2"): 1,
        ("102", "d3"): 3, ("102", "d4"): 0, ("103", "d5"): 1,
    }  # fmt: skip
    assert page_errors == []
