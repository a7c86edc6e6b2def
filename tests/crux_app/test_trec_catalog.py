"""The TREC formats in the import catalog: topics and passages are offered on the upload page;
qrels, whose judge the page's form cannot name, only through the command and the import job."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.dataio.catalog import IMPORT_FORMATS, upload_formats
from crux_app.dataio.import_job import ImportJobParams, run_import_job, start_import_job
from crux_app.dataio.uploads import store_file
from crux_app.models import Judge, PassageQrel

from .trec_inputs import trec_files

pytestmark = pytest.mark.django_db


def test_catalog_and_upload_page(researcher_client):
    assert {"topics", "qrels", "passages"} <= set(IMPORT_FORMATS)
    assert "qrels" not in {f.name for f in upload_formats()}
    page = researcher_client.get(reverse("upload")).content.decode()
    assert 'value="topics"' in page and 'value="passages"' in page
    assert 'value="qrels"' not in page


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
