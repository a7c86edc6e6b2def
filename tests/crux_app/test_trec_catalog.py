"""The TREC formats in the import catalog: topics, passages and qrels are offered on the upload
page, whose fields are the formats' declared parameters (the qrels' judge among them)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.dataio.catalog import IMPORT_FORMATS, upload_formats
from crux_app.dataio.imports.job import ImportJobParams, run_import_job, start_import_job
from crux_app.dataio.uploads import store_file
from crux_app.models import Job, Judge, PassageQrel

from .trec_inputs import trec_files

pytestmark = pytest.mark.django_db


def test_catalog_and_upload_page(researcher_client):
    assert {"topics", "qrels", "passages"} <= set(IMPORT_FORMATS)
    assert "qrels" in {f.name for f in upload_formats()}
    page = researcher_client.get(reverse("upload")).content.decode()
    assert 'value="topics"' in page and 'value="passages"' in page
    assert 'value="qrels"' in page
    # The qrels' declared parameters are fields of the page, shown for that format.
    assert 'data-params="judge judge_kind model_id prompt_version add_missing_passages ' in page
    for name in ("judge", "judge_kind", "model_id", "prompt_version", "add_missing_passages"):
        assert f'name="{name}"' in page


def _upload_qrels(client, path, **fields):
    data = {"format": "qrels", "collection": "trec", "file": SimpleUploadedFile(
        path.name, path.read_bytes()), **fields}  # fmt: skip
    return client.post(reverse("upload"), data)


def test_qrels_uploaded_in_the_browser_are_stored_as_the_judges(
    researcher_client, tmp_path, settings
):
    settings.UPLOAD_DIR = str(tmp_path / "uploads")
    files = trec_files(tmp_path / "trec")
    IMPORT_FORMATS["topics"].importer("trec", files["topics"])
    IMPORT_FORMATS["passages"].importer("trec", files["passages"])
    response = _upload_qrels(
        researcher_client,
        files["umbrela"],
        judge="umbrela-gpt",
        judge_kind="llm",
        model_id="gpt-4o",
        prompt_version="umbrela-v1",
    )
    job = Job.objects.get(kind="import")
    assert response.status_code == 302 and response.url == reverse("job-detail", args=[job.pk])
    assert job.params["judge"] == "umbrela-gpt" and job.params["add_missing_passages"] is False
    job = run_import_job(job)
    assert job.state == job.State.SUCCEEDED, job.message
    judge = Judge.objects.get(name="umbrela-gpt")
    assert (judge.kind, judge.model_id, judge.prompt_version) == ("llm", "gpt-4o", "umbrela-v1")
    stored = PassageQrel.objects.filter(source="umbrela-gpt")
    rows = {(q.topic.external_id, q.passage.external_id, q.grade) for q in stored}
    assert rows == {
        ("101", "d0", 3), ("101", "d1", 1), ("101", "d2", 0),
        ("102", "d3", 2), ("102", "d4", 1), ("103", "d5", 0),
    }  # fmt: skip


def test_a_qrels_upload_needs_its_judge_and_a_known_kind(researcher_client, tmp_path, settings):
    settings.UPLOAD_DIR = str(tmp_path / "uploads")
    files = trec_files(tmp_path / "trec")
    missing = _upload_qrels(researcher_client, files["nist"], judge_kind="human")
    assert missing.status_code == 400
    assert "TREC qrels of one judge needs this." in missing.content.decode()
    unknown = _upload_qrels(researcher_client, files["nist"], judge="nist", judge_kind="robot")
    assert unknown.status_code == 400
    assert "Select a valid choice. robot is not one of the available choices." in (
        unknown.content.decode()
    )
    assert not Job.objects.filter(kind="import").exists()


def test_run_and_qrels_job_parameters_default_to_no_missing_passages():
    run = ImportJobParams.from_params(
        {"format": "run", "collection": "c", "source": "s", "run_name": "bm25"}
    )
    assert run.options == {"run_name": "bm25", "add_missing_passages": False}
    qrels = ImportJobParams.from_params(
        {
            "format": "qrels",
            "collection": "c",
            "source": "s",
            "judge": "nist",
            "judge_kind": "human",
        }
    )
    assert qrels.options == {
        "judge": "nist",
        "judge_kind": "human",
        "model_id": "",
        "prompt_version": "",
        "add_missing_passages": False,
    }


def test_a_qrels_import_job_runs_the_importer(tmp_path, settings):
    settings.UPLOAD_DIR = str(tmp_path / "uploads")
    files = trec_files(tmp_path / "trec")
    IMPORT_FORMATS["topics"].importer("trec", files["topics"])
    IMPORT_FORMATS["passages"].importer("trec", files["passages"])
    stored = store_file(SimpleUploadedFile("nist.qrels", files["nist"].read_bytes()))
    config = ImportJobParams(
        "qrels",
        "trec",
        stored.source,
        stored.label,
        {"judge": "nist", "judge_kind": "human", "add_missing_passages": False},
    )
    job = run_import_job(start_import_job(config))
    assert job.state == job.State.SUCCEEDED, job.message
    assert Judge.objects.get(name="nist").kind == "human"
    assert PassageQrel.objects.filter(source="nist").count() == 6
