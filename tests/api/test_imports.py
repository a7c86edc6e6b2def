"""``POST /api/v1/collections/<name>/imports/``: the upload page's job path; a bad file fails
the job with the importer's FILE:LINE message."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from crux_app.dataio.imports.crux_labeling import import_crux_labeling
from crux_app.models import Job, PassageQrel, Run
from crux_app.tasks import import_data

pytestmark = pytest.mark.django_db

URL = "/api/v1/collections/duc/imports/"
BAD_RUN = b"duc04-testb-3 Q0 duc04-testb-3:9#27 4 0.25 t\nduc04-testb-3 Q0 duc04-testb-3:8#24 4\n"


def _run_job(job_id: int) -> Job:
    import_data(job_id)  # what the worker does with the job's message
    return Job.objects.get(pk=job_id)


def test_run_import_answers_202_with_the_job_and_imports(api, crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)
    run_file = SimpleUploadedFile("bm25.run", (crux_sample_dir / "bm25.run").read_bytes())
    response = api.post(URL, {"format": "run", "run_name": "bm25-api", "file": run_file})
    assert response.status_code == 202, response.content
    job = response.json()["job"]
    assert (job["kind"], job["state"]) == ("import", "pending")
    assert _run_job(job["id"]).state == Job.State.SUCCEEDED
    assert Run.objects.get(name="bm25-api").entries.count() == 9


def test_bad_file_fails_the_job_with_file_and_line(api, crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)
    bad = SimpleUploadedFile("bm25.run", BAD_RUN)
    job_id = api.post(URL, {"format": "run", "run_name": "r", "file": bad}).json()["job"]["id"]
    job = _run_job(job_id)
    assert job.state == Job.State.FAILED
    assert job.message.startswith("bm25.run:2: expected 6 whitespace-separated fields")


def test_qrels_format_with_its_judge_parameters(api, crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)
    line = b"duc04-testb-3 0 duc04-testb-3:9#27 2\n"
    response = api.post(
        URL,
        {
            "format": "qrels",
            "judge": "assessor",
            "judge_kind": "human",
            "add_missing_passages": "true",
            "file": SimpleUploadedFile("q.txt", line),
        },
    )
    assert response.status_code == 202, response.content
    job = _run_job(response.json()["job"]["id"])
    assert job.state == Job.State.SUCCEEDED, job.message
    assert job.params["judge"] == "assessor" and job.params["add_missing_passages"] is True
    assert PassageQrel.objects.filter(source="assessor").count() == 1


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"format": "nope"}, "format"),
        ({"format": "run"}, "run_name"),
        ({"format": "run", "run_name": "r"}, "file"),
        ({"format": "qrels", "judge": "j", "judge_kind": "robot"}, "judge_kind"),
        ({"format": "crux", "split": "test", "tau": "9"}, "tau"),
    ],
)
def test_bad_fields_are_named(api, data, field):
    response = api.post(URL, data)
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Job.objects.exists()


def test_json_body_is_refused_as_json(api):
    response = api.post(URL, {"format": "run"}, content_type="application/json")
    assert response.status_code == 415
    assert "detail" in response.json()


def test_large_upload_with_a_researcher_token_streams(api, settings, crux_sample_dir):
    import_crux_labeling("duc", crux_sample_dir)
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = SimpleUploadedFile("big.run", b"\n" * 5000)
    response = api.post(URL, {"format": "run", "run_name": "big", "file": big})
    assert response.status_code == 202


def test_annotator_cannot_import(annotator_api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = SimpleUploadedFile("big.run", b"\n" * 5000)
    assert annotator_api.post(URL, {"format": "run", "file": big}).status_code == 413
    small = SimpleUploadedFile("s.run", b"x")
    assert annotator_api.post(URL, {"format": "run", "file": small}).status_code == 403
