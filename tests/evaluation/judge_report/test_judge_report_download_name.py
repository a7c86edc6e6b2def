"""The judge report's downloads name the collection in a header-safe ``Content-Disposition``,
whatever the (older) collection's name holds."""

import pytest
from django.urls import reverse

from crux_app.models import Collection
from tests.evaluation.judge_report.two_judges import make_two_judges

pytestmark = pytest.mark.django_db

PARAMS = {"judge_a": "llm-judge", "judge_b": "people", "k": "3", "resamples": "20"}


@pytest.mark.parametrize(
    ("stored_name", "header"),
    [
        # A name stored before names were checked: CR/LF are percent-encoded, never sent raw.
        (
            "evil\r\nSet-Cookie: x=1",
            "attachment; filename*=utf-8''judge-report-evil%0D%0ASet-Cookie%3A%20x%3D1.json",
        ),
        ('q"uote', 'attachment; filename="judge-report-q\\"uote.json"'),
        ("Réseau", "attachment; filename*=utf-8''judge-report-R%C3%A9seau.json"),
    ],
)
def test_download_header_is_safe_for_any_stored_name(researcher_client, stored_name, header):
    two = make_two_judges()
    Collection.objects.filter(pk=two.collection.pk).update(name=stored_name)
    response = researcher_client.get(
        reverse("judge-report", args=[two.collection.pk]), {**PARAMS, "format": "json"}
    )
    assert response.status_code == 200
    assert response["Content-Disposition"] == header
    assert "\r" not in response.serialize_headers().decode("latin-1").replace("\r\n", "")
