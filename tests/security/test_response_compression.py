"""gzip on HTML pages and JSON answers when asked for, never on a page that shows a secret once
(BREACH), a download or a stream; static files keep WhiteNoise's own compressed copies and
their year-long caching."""

import gzip
import re

import pytest
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory
from django.urls import reverse

from api.tokens import issue_token
from crux_app.response_compression import ResponseCompressionMiddleware, never_compressed
from tests.crux_app.factories import make_collection

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate"}
BODY = "<!doctype html><p>" + "the same words again " * 50


def test_a_page_with_a_csrf_token_is_gzipped_only_when_asked(researcher_client):
    url = reverse("webhook-create")
    plain = researcher_client.get(url)
    assert plain.status_code == 200 and "Content-Encoding" not in plain
    assert "csrfmiddlewaretoken" in plain.text
    packed = researcher_client.get(url, **GZIP)
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    page = gzip.decompress(packed.content).decode()
    assert "csrfmiddlewaretoken" in page and len(packed.content) < len(page.encode())
    # Django masks the CSRF token anew in every response: its bytes never repeat.
    token = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
    assert token.search(page).group(1) != token.search(plain.text).group(1)


def test_an_api_json_answer_is_gzipped_only_when_asked(client, researcher):
    for i in range(8):
        make_collection(f"collection-{i}")
    _, token = issue_token(researcher, "notebook")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    plain = client.get("/api/v1/collections/", **auth)
    assert plain.status_code == 200 and "Content-Encoding" not in plain
    packed = client.get("/api/v1/collections/", **auth, **GZIP)
    assert packed["Content-Encoding"] == "gzip"
    assert packed["Content-Type"].startswith("application/json")
    assert gzip.decompress(packed.content) == plain.content


def test_a_new_api_token_is_never_compressed(researcher_client):
    researcher_client.post(reverse("api-tokens"), {"name": "pipeline"})
    shown = researcher_client.get(reverse("api-tokens"), **GZIP)
    assert shown.context["new_token"] in shown.content.decode()
    assert "Content-Encoding" not in shown


def test_a_new_webhook_secret_is_never_compressed(researcher_client):
    data = {"url": "https://8.8.8.8/hooks", "events": ["job.failed"], "secret": "s" * 24 + "0001"}
    created = researcher_client.post(reverse("webhook-create"), data)
    assert created.status_code == 302
    shown = researcher_client.get(created.url, **GZIP)
    assert "s" * 24 + "0001" in shown.content.decode()
    assert "Content-Encoding" not in shown


@pytest.mark.parametrize(
    "make",
    [
        lambda: never_compressed(HttpResponse(BODY)),
        lambda: StreamingHttpResponse(iter([BODY.encode()])),
        lambda: HttpResponse(BODY, headers={"Content-Disposition": 'attachment; filename="a"'}),
        lambda: HttpResponse(BODY, content_type="image/png"),
        lambda: HttpResponse("<p>short</p>"),
    ],
    ids=["marked-secret", "streaming", "download", "not-html-or-json", "small"],
)
def test_what_is_left_uncompressed(make):
    middleware = ResponseCompressionMiddleware(lambda request: make())
    response = middleware(RequestFactory().get("/", **GZIP))
    assert "Content-Encoding" not in response


def test_an_html_body_through_the_middleware_is_gzipped():
    middleware = ResponseCompressionMiddleware(lambda request: HttpResponse(BODY))
    response = middleware(RequestFactory().get("/", **GZIP))
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(response.content).decode() == BODY


@pytest.mark.usefixtures("serve_collected_static")
def test_static_files_keep_their_precompressed_copy_and_year_long_caching(researcher_client):
    html = researcher_client.get(reverse("webhook-create")).text
    src = re.search(r'<script src="(/static/[^"]+\.[0-9a-f]{12}\.js)"', html).group(1)
    response = researcher_client.get(src, **GZIP)
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]
    assert int(re.search(r"max-age=(\d+)", response["Cache-Control"]).group(1)) >= 365 * 86400
    # WhiteNoise's own .gz file, streamed with its length: not compressed a second time.
    body = b"".join(response.streaming_content)
    assert int(response["Content-Length"]) == len(body)
    assert gzip.decompress(body)
