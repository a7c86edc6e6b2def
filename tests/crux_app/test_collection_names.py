"""Collection names: no control characters (CR/LF broke a download header), not blank, at most
200 characters; every path that creates a collection refuses such a name with a message."""

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from crux_app.collection_names import collection_name_problem
from crux_app.dataio.errors import ImportFailure
from crux_app.dataio.imports.topics import import_topics
from crux_app.models import Collection, Job

pytestmark = pytest.mark.django_db

BAD_NAMES = ["judge\r\nreport", "line\nfeed", "tab\there", "nul\x00", "sep\u2028arated", "bell\x07"]
TOPICS = b"q1\tWhat changed?\n"


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


@pytest.mark.parametrize("name", BAD_NAMES)
def test_control_characters_are_refused(name):
    assert "control characters" in collection_name_problem(name)


@pytest.mark.parametrize(
    ("name", "reason"), [("", "empty"), ("   ", "empty"), ("x" * 201, "at most 200")]
)
def test_blank_and_long_names_are_refused(name, reason):
    assert reason in collection_name_problem(name)


@pytest.mark.parametrize("name", ["duc04", "Réseau 2004", "trec:rag#24 (tau 3)", "x" * 200])
def test_ordinary_names_pass(name):
    assert collection_name_problem(name) is None


def test_the_model_refuses_to_store_a_bad_name():
    with pytest.raises(ValueError, match="control characters"):
        Collection.objects.create(name="a\r\nb")
    with pytest.raises(ValidationError) as caught:
        Collection(name="a\r\nb").full_clean()
    assert "control characters" in caught.value.message_dict["name"][0]
    assert not Collection.objects.exists()


def test_upload_form_refuses_the_name_with_a_400(researcher_client, upload_dir):
    data = {
        "format": "topics",
        "collection": "evil\r\nname",
        "file": SimpleUploadedFile("topics.tsv", TOPICS),
    }
    response = researcher_client.post(reverse("upload"), data)
    assert response.status_code == 400
    assert "control characters" in response.context["form"].errors["collection"][0]
    assert not Job.objects.exists()
    assert not upload_dir.exists() or not any(upload_dir.iterdir())


def test_import_command_refuses_the_name(tmp_path):
    source = tmp_path / "topics.tsv"
    source.write_bytes(TOPICS)
    with pytest.raises(CommandError, match="--collection: .*control characters"):
        call_command("import_topics", "--collection", "evil\nname", str(source))
    assert not Collection.objects.exists()


def test_importer_run_by_a_job_refuses_the_name(tmp_path):
    source = tmp_path / "topics.tsv"
    source.write_bytes(TOPICS)
    with pytest.raises(ImportFailure, match="control characters"):
        import_topics("evil\r\nname", source, label="topics.tsv")
    assert not Collection.objects.exists()


def test_admin_refuses_the_name(admin_client):
    url = reverse("admin:crux_app_collection_add")
    response = admin_client.post(url, {"name": "evil\r\nname", "kind": "report"})
    assert response.status_code == 200  # the admin shows its form again with the error
    assert "control characters" in response.content.decode()
    assert not Collection.objects.exists()
