"""The upload page: researchers upload files and folders, an ``import`` job imports them; bad
input fails the job with the file and line and changes nothing."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from crux_app.dataio.imports.crux_labeling import import_crux_labeling
from crux_app.dataio.imports.job import import_summary, run_import_job
from crux_app.dataio.results import ImportResult
from crux_app.jobs.catalog import get_kind
from crux_app.jobs.service import retry_job
from crux_app.models import Collection, Job, Judgment, PassageQrel, Run
from crux_app.tasks import import_data

from .importer_inputs import hub_release, row_counts

pytestmark = pytest.mark.django_db

BAD_RUN = b"duc04-testb-3 Q0 duc04-testb-3:9#27 4 0.25 t\nduc04-testb-3 Q0 duc04-testb-3:8#24 4\n"


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _file(path, name=None):
    return SimpleUploadedFile(name or path.name, path.read_bytes())


def _folder(sample, top="crux_labeling"):
    """A folder as a browser sends it: the files, and their relative paths."""
    files = sorted(p for p in sample.rglob("*") if p.is_file())
    paths = [f"{top}/{p.relative_to(sample).as_posix()}" for p in files]
    return [_file(p) for p in files], json.dumps(paths)


def _upload(client, data) -> Job:
    """Post the form; it must redirect to the page of the one import job it started."""
    response = client.post(reverse("upload"), data)
    job = Job.objects.get(kind="import")
    assert response.status_code == 302
    assert response.url == reverse("job-detail", args=[job.pk])
    return job


def _run(job: Job) -> Job:
    """What the worker does with the job's message."""
    import_data(job.pk)
    job.refresh_from_db()
    return job


def _run_upload(collection="duc", file=None, run_name="bm25-web", sample=None):
    return {
        "format": "run",
        "collection": collection,
        "run_name": run_name,
        "file": file or _file(sample / "bm25.run"),
    }


def test_page_lists_the_catalog_formats(researcher_client):
    response = researcher_client.get(reverse("upload"))
    assert response.status_code == 200
    page = response.content.decode()
    for value in ("crux", "crux-labeling", "run", "qa"):
        assert f'value="{value}"' in page
    assert "webkitdirectory" in page


def test_import_kind_runs_on_the_cpu_queue():
    from crux_app.celery import app

    kind = get_kind("import")
    assert (kind.label, kind.task_name) == ("Import data", "jobs.import")
    route = app.amqp.router.route({}, kind.task_name, args=(1,), kwargs={})
    assert route["queue"].name == "cpu"
    app.loader.import_default_modules()
    assert kind.task_name in app.tasks  # what `celery worker` finds


def test_file_upload_stores_the_file_and_starts_a_pending_job(
    researcher_client, researcher, crux_sample_dir, upload_dir
):
    import_crux_labeling("duc", crux_sample_dir)
    before = row_counts()
    job = _upload(researcher_client, _run_upload(sample=crux_sample_dir))

    assert job.state == Job.State.PENDING
    assert (job.collection.name, job.created_by) == ("duc", researcher)
    folder, name = job.params["source"].split("/")
    assert name == "bm25.run" and len(folder) == 32
    assert job.params == {
        "format": "run",
        "collection": "duc",
        "source": f"{folder}/bm25.run",
        "label": "bm25.run",
        "run_name": "bm25-web",
        "add_missing_passages": False,  # the page has no field for it: the default
    }
    stored = upload_dir / folder / "bm25.run"
    assert stored.read_bytes() == (crux_sample_dir / "bm25.run").read_bytes()
    assert row_counts() == before  # nothing is imported in the request

    page = researcher_client.get(reverse("job-detail", args=[job.pk]))
    assert "Import data" in page.content.decode()
    assert [str(m) for m in page.context["messages"]] == [
        f"Uploaded 1 file; job #{job.pk} imports them."
    ]


def test_task_imports_the_run_and_removes_the_upload(
    researcher_client, crux_sample_dir, upload_dir
):
    import_crux_labeling("duc", crux_sample_dir)
    job = _run(_upload(researcher_client, _run_upload(sample=crux_sample_dir)))

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message == "run import into 'duc': 1 runs, 9 run entries, 2 topics"
    assert (job.done, job.total, job.attempts, job.errors) == (1, 1, 1, [])
    assert Run.objects.get(name="bm25-web").entries.count() == 9
    assert list(upload_dir.iterdir()) == []
    page = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    assert "run import into &#x27;duc&#x27;: 1 runs, 9 run entries, 2 topics" in page


def test_malformed_run_file_fails_the_job_with_the_line_and_changes_nothing(
    researcher_client, crux_sample_dir, upload_dir
):
    import_crux_labeling("duc", crux_sample_dir)
    before = row_counts()
    upload = _run_upload(file=SimpleUploadedFile("bm25.run", BAD_RUN), run_name="r")
    job = _run(_upload(researcher_client, upload))

    message = (
        "bm25.run:2: expected 6 whitespace-separated fields (qid Q0 pid rank score tag), got 4"
    )
    assert job.state == Job.State.FAILED
    assert job.message == message
    (error,) = job.errors
    assert error["message"] == f"ImportFailure: {message}"
    assert row_counts() == before
    assert (upload_dir / job.params["source"]).read_bytes() == BAD_RUN  # kept for a retry
    page = researcher_client.get(reverse("job-detail", args=[job.pk])).content.decode()
    assert message in page


def test_retry_imports_the_stored_file_again(
    researcher_client, crux_sample_dir, upload_dir, settings, django_capture_on_commit_callbacks
):
    job = _run(_upload(researcher_client, _run_upload(sample=crux_sample_dir)))
    assert job.state == Job.State.FAILED
    assert job.message == "bm25.run: collection 'duc' does not exist"
    assert job.collection is None

    import_crux_labeling("duc", crux_sample_dir)
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with django_capture_on_commit_callbacks(execute=True):
        retry_job(job)
    job.refresh_from_db()

    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.attempts == 2
    assert job.collection == Collection.objects.get(name="duc")
    assert Run.objects.get(name="bm25-web").entries.count() == 9
    assert list(upload_dir.iterdir()) == []

    # Once succeeded, the upload is gone; its task delivered again leaves the job as it is.
    message = job.message
    job = _run(job)
    assert (job.state, job.message, job.attempts) == (Job.State.SUCCEEDED, message, 2)


def test_folder_upload_of_the_platform_sample_runs_eagerly(
    researcher_client, crux_sample_dir, upload_dir, settings, django_capture_on_commit_callbacks
):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    files, paths = _folder(crux_sample_dir)
    with django_capture_on_commit_callbacks(execute=True):
        job = _upload(
            researcher_client,
            {
                "format": "crux-labeling",
                "collection": "web",
                "folder": files,
                "relative_paths": paths,
            },
        )
    job.refresh_from_db()

    collection = Collection.objects.get(name="web")
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.params["source"].endswith("/crux_labeling")
    assert job.params["label"] == "crux_labeling"
    assert job.message.startswith("crux-labeling import into 'web' (new collection): ")
    assert job.collection == collection
    assert collection.topics.count() == 2
    assert Judgment.objects.filter(judge__name="annotator2").count() > 0
    assert list(upload_dir.iterdir()) == []


def test_folder_error_names_the_file_inside_the_folder(researcher_client, crux_sample_dir):
    files, paths = _folder(crux_sample_dir)
    names = json.loads(paths)
    spoiled = names.index("crux_labeling/labels/annotator1_qrels.jsonl")
    files[spoiled] = SimpleUploadedFile("annotator1_qrels.jsonl", b'{"id": "duc04-testb-3"}\n')
    before = row_counts()
    upload = {
        "format": "crux-labeling",
        "collection": "web",
        "folder": files,
        "relative_paths": paths,
    }
    job = _run(_upload(researcher_client, upload))

    assert job.state == Job.State.FAILED
    assert job.message == "crux_labeling/labels/annotator1_qrels.jsonl:1: missing field 'document'"
    assert row_counts() == before


def test_paths_leaving_the_folder_are_refused(researcher_client, upload_dir):
    response = researcher_client.post(
        reverse("upload"),
        {
            "format": "crux-labeling",
            "collection": "web",
            "folder": [SimpleUploadedFile("x.jsonl", b"{}\n")],
            "relative_paths": json.dumps(["web/../../x.jsonl"]),
        },
    )
    assert response.status_code == 400
    assert "Refused the file path" in response.content.decode()
    assert not Collection.objects.exists()
    assert not Job.objects.exists()
    assert not upload_dir.exists() or list(upload_dir.iterdir()) == []


def test_file_format_without_a_file_is_refused(researcher_client):
    response = researcher_client.post(reverse("upload"), {"format": "qa", "collection": "nq"})
    assert response.status_code == 400
    assert "Choose a file to upload." in response.content.decode()
    assert not Job.objects.exists()


def test_hub_release_needs_split_and_tau(researcher_client):
    response = researcher_client.post(reverse("upload"), {"format": "crux", "collection": "hub"})
    assert response.status_code == 400
    assert response.context["form"].errors["tau"] == [
        "CRUX hub release (ranking_T folder) needs this."
    ]
    assert not Job.objects.exists()


def test_annotator_is_forbidden(client, annotator, crux_sample_dir):
    client.force_login(annotator)
    assert client.get(reverse("upload")).status_code == 403
    response = client.post(
        reverse("upload"),
        {"format": "qa", "collection": "x", "file": _file(crux_sample_dir / "bm25.run")},
    )
    assert response.status_code == 403
    assert not Collection.objects.exists()
    assert not Job.objects.exists()


def _hub_upload(root, tau):
    files, paths = _folder(root, top="crux")
    return {
        "format": "crux",
        "collection": "hub",
        "split": "testb",
        "tau": tau,
        "folder": files,
        "relative_paths": paths,
    }


def test_hub_release_folder_upload(researcher_client, tmp_path):
    job = _upload(researcher_client, _hub_upload(hub_release(tmp_path / "crux"), "3"))
    assert (job.params["split"], job.params["tau"]) == ("testb", 3)
    job = _run(job)
    assert job.state == Job.State.SUCCEEDED, job.errors
    assert job.message.startswith("crux import into 'hub' (new collection): 2 topics")
    assert PassageQrel.objects.filter(source="crux_tau3").count() == 6


def test_hub_release_upload_with_wrong_threshold(researcher_client, tmp_path):
    job = _run(_upload(researcher_client, _hub_upload(hub_release(tmp_path / "crux"), "5")))
    assert job.state == Job.State.FAILED
    assert job.message == "crux: no ranking_5/ folder and no testb_* release files here"
    assert not Collection.objects.exists()


def test_qa_upload_defaults_the_run_name(researcher_client):
    line = {
        "id": "q1",
        "question": "Who?",
        "answers": ["Ann"],
        "contexts": [{"id": "p1", "text": "Ann."}],
    }
    data = {
        "format": "qa",
        "collection": "nq",
        "file": SimpleUploadedFile("qa.jsonl", json.dumps(line).encode()),
    }
    job = _upload(researcher_client, data)
    assert job.params["run_name"] == "contexts"
    assert _run(job).state == Job.State.SUCCEEDED
    assert Run.objects.get(collection__name="nq").name == "contexts"


@pytest.mark.parametrize("source", ["/etc/passwd", "../outside", "0123/x", ""])
def test_job_refuses_a_source_outside_an_upload(source):
    params = {"format": "qa", "collection": "nq", "source": source, "label": "x"}
    job = run_import_job(Job.objects.create(kind="import", params=params))
    assert job.state == Job.State.FAILED
    assert job.message in (
        f"{source!r} is not a stored upload's path",
        "job parameter 'source' is missing",
    )
    assert not Collection.objects.exists()


def test_summary_lists_the_first_warnings():
    result = ImportResult("crux-labeling", "web", counts={"topics": 2})
    assert import_summary(result) == "crux-labeling import into 'web': 2 topics"
    result.warnings = [f"w{i}" for i in range(23)]
    summary = import_summary(result)
    assert summary.startswith("crux-labeling import into 'web': 2 topics. 23 warnings: w0; w1; ")
    assert summary.endswith("; w19; and 3 more")
