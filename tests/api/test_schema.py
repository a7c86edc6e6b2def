"""The committed OpenAPI schema (api/openapi.json) matches the code; the schema and the docs are
served from this site (no CDN). After an API change, regenerate it with ``DJANGO_DEBUG=1
.venv/bin/python manage.py spectacular --format openapi-json --file api/openapi.json``."""

import json
import re
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

import api

pytestmark = pytest.mark.django_db

COMMITTED = Path(api.__file__).resolve().parent / "openapi.json"


def test_committed_schema_matches_the_code():
    generated = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    committed = json.loads(COMMITTED.read_text())
    assert generated == committed, (
        "api/openapi.json is stale: regenerate it with `DJANGO_DEBUG=1 .venv/bin/python "
        "manage.py spectacular --format openapi-json --file api/openapi.json`"
    )


def test_schema_endpoint_serves_openapi_3_json(client):
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/jobs/{id}/" in schema["paths"]
    assert schema["components"]["securitySchemes"]["bearerToken"]["scheme"] == "bearer"


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_docs_load_their_scripts_from_this_site(client, url):
    response = client.get(url)
    assert response.status_code == 200
    page = response.content.decode()
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', page)
    assert sources
    assert all(not s.startswith(("http:", "https:", "//")) for s in sources), sources
    assert any("drf_spectacular_sidecar" in s for s in sources)


def test_the_published_job_start_types_each_kinds_declared_params():
    from api.job_start import accepted_params, job_params_schema
    from api.registry import JOB_FORMS

    committed = json.loads(COMMITTED.read_text())
    alternatives = committed["components"]["schemas"]["JobStart"]["oneOf"]
    by_kind = {a["title"]: a["properties"] for a in alternatives}
    assert set(by_kind) == set(JOB_FORMS)
    for kind, properties in by_kind.items():
        assert properties["kind"]["enum"] == [kind]
        params = properties["params"]
        assert params == job_params_schema(kind)
        assert list(params["properties"]) == accepted_params(JOB_FORMS[kind])
        assert params["additionalProperties"] is False
    dense = by_kind["dense"]["params"]["properties"]
    assert dense["refine"]["default"] is True and dense["k"]["maximum"] == 20
