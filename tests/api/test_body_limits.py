"""Bodies over Django's form limits on API routes (issue 34, section 5: a 3 MB field or 1,500
fields got Django's HTML 400): a JSON error naming the limit, on every kind of API route."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db

MANY_FIELDS = {f"f{i}": "1" for i in range(1500)}
BIG_FIELD = {"name": "x" * (3 * 1024**2)}


def _json_error(response, status: int, limit: str) -> None:
    assert response.status_code == status, (response.status_code, response.content[:200])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    assert limit in response.json()["detail"], response.json()


@pytest.mark.parametrize("multipart", [True, False])
def test_too_many_fields_is_a_json_400_naming_the_limit(api, multipart):
    make_small_collection("duc04")
    for url in (
        reverse("api-collections"),
        reverse("api-collection-jobs", args=["duc04"]),
        reverse("api-collection-imports", args=["duc04"]),
        "/api/v1/collections/duc04/review-merges/",
    ):
        if multipart:
            response = api.post(url, MANY_FIELDS)
        else:
            body = "&".join(f"{k}={v}" for k, v in MANY_FIELDS.items())
            response = api.post(url, body, content_type="application/x-www-form-urlencoded")
        _json_error(response, 400, "DATA_UPLOAD_MAX_NUMBER_FIELDS")


def test_a_3_mb_field_is_a_json_error_naming_the_limit(api):
    make_small_collection("duc04")
    # An ordinary route: refused by its Content-Length before anything reads it (413).
    _json_error(api.post(reverse("api-collections"), BIG_FIELD), 413, "DATA_UPLOAD_MAX_MEMORY_SIZE")
    # The import route streams a researcher's files; its form fields keep Django's limit.
    upload = SimpleUploadedFile("run.txt", b"q 0 d 1 1.0 t\n")
    response = api.post(
        reverse("api-collection-imports", args=["duc04"]),
        {"format": "run", "file": upload, "notes": BIG_FIELD["name"]},
    )
    _json_error(response, 400, "DATA_UPLOAD_MAX_MEMORY_SIZE")
