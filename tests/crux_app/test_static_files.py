"""Static files as served after setup's collectstatic: hashed names cached for ten years and sent
gzip-compressed by WhiteNoise, plotly deferred so it never blocks a page, and pages that still
work where nothing was collected."""

import re
from pathlib import Path

import plotly
import pytest
from django.conf import settings
from django.urls import reverse

from tests.evaluation.crux.matrix_seed import make_matrix_topic
from tests.project_files import files_in, static_folders

pytestmark = pytest.mark.django_db

ONE_YEAR_S = 365 * 24 * 3600


def _matrix_url() -> str:
    hand = make_matrix_topic()
    return reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])


def _script_srcs(html: str) -> dict[str, str]:
    """src -> the whole tag, of every script element of the page."""
    return {m.group(1): m.group(0) for m in re.finditer(r'<script src="([^"]+)"[^>]*>', html)}


@pytest.mark.usefixtures("serve_collected_static")
def test_collected_files_are_hashed_compressed_and_cached_for_a_year(researcher_client):
    html = researcher_client.get(_matrix_url()).text
    scripts = _script_srcs(html)
    plotly = next(src for src in scripts if "plotly" in src)
    assert re.fullmatch(r"/static/plotly/plotly-cartesian\.min\.[0-9a-f]{12}\.js", plotly), plotly
    matrix = next(src for src in scripts if "matrix" in src)
    assert re.fullmatch(r"/static/js/matrix\.[0-9a-f]{12}\.js", matrix), matrix
    for src in (plotly, matrix):
        response = researcher_client.get(src, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
        assert response.status_code == 200
        assert response["Content-Encoding"] in {"gzip", "br"}, src
        max_age = int(re.search(r"max-age=(\d+)", response["Cache-Control"]).group(1))
        assert max_age >= ONE_YEAR_S and "immutable" in response["Cache-Control"], src
    compressed = b"".join(
        researcher_client.get(plotly, HTTP_ACCEPT_ENCODING="gzip").streaming_content
    )
    assert len(compressed) < 600_000  # 1.5 MB of JavaScript, about 0.5 MB sent


def test_plotly_and_every_drawing_script_are_deferred_in_document_order(researcher_client):
    scripts = _script_srcs(researcher_client.get(_matrix_url()).text)
    order = list(scripts)
    plotly = order.index("/static/plotly/plotly-cartesian.min.js")
    assert " defer" in scripts[order[plotly]]
    # The page's own scripts come after plotly and are deferred too, so they run after it.
    assert all(" defer" in scripts[src] for src in order[plotly:])
    assert order.index("/static/js/matrix.js") > plotly


def _plotly_version(path: Path) -> str:
    return re.search(r"plotly\.js (?:\([^)]*\) )?v(\d+\.\d+\.\d+)", path.read_text()[:300]).group(1)


def test_the_pages_bundle_is_the_plotly_js_of_the_reports():
    """The pages' cartesian bundle and the full one the self-contained reports inline are the
    same plotly.js release (static/plotly/README.md: how to replace it after an upgrade)."""
    cartesian = Path(settings.BASE_DIR) / "static" / "plotly" / "plotly-cartesian.min.js"
    full = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert _plotly_version(cartesian) == _plotly_version(full)


def test_pages_name_source_files_where_nothing_was_collected(researcher_client, settings, tmp_path):
    settings.STATIC_ROOT = tmp_path / "never-collected"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "crux_app.static_files.CollectedStaticFilesStorage"},
    }
    response = researcher_client.get(_matrix_url())
    assert response.status_code == 200
    assert '<script src="/static/plotly/plotly-cartesian.min.js"' in response.text
    served = researcher_client.get("/static/plotly/plotly-cartesian.min.js")
    assert served.status_code == 200


CDN = re.compile(rb"https?://(?:cdn\.|cdnjs\.|unpkg\.com|[a-z0-9.-]*jsdelivr)", re.IGNORECASE)


def test_no_static_file_names_a_cdn():
    """Pages work without network: no script, style or font the site serves names a CDN (the
    vendored plotly bundle's default map-data URL included; static/plotly/README.md)."""
    files = files_in(static_folders())
    assert "js/matrix.js" in dict(files)  # the methods' folders are read too
    named = [
        name
        for name, path in files
        if path.suffix in {".js", ".css", ".html", ".json", ".svg"}
        and CDN.search(path.read_bytes())
    ]
    assert named == []
