"""A first visit of a chart page on the production static files: a server that serves them as
gunicorn does (WhiteNoise, collected, compressed) rather than through the live server's finder
handler. Prints how long the coverage matrix takes to become interactive (README figure); asserts
only what makes it fast: plotly deferred, sent compressed, cached for a year under a hashed name."""

import re
import time
from collections.abc import Iterator

import pytest
from django.test.testcases import LiveServerThread
from django.urls import reverse
from playwright.sync_api import Browser, Response, expect

from tests.browser_fixtures import LAPTOP
from tests.evaluation.crux.matrix_seed import make_matrix_topic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ONE_YEAR_S = 365 * 24 * 3600
# ms from navigation start: the HTML received, plotly received, now (the heatmap is drawn).
TIMINGS = """() => [
  performance.getEntriesByType("navigation")[0].responseEnd,
  performance.getEntriesByType("resource").find((e) => e.name.includes("plotly")).responseEnd,
  performance.now(),
]"""


def _no_static_handler(application):  # noqa: ANN001, ANN201 (LiveServerThread's handler hook)
    """Static requests go through the app's middleware (WhiteNoise), as under gunicorn."""
    return application


@pytest.fixture
def production_server(serve_collected_static) -> Iterator[str]:
    """The app on a live server thread whose static files WhiteNoise serves from STATIC_ROOT."""
    thread = LiveServerThread("localhost", _no_static_handler)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    yield f"http://localhost:{thread.port}"
    thread.terminate()


def test_first_visit_of_the_matrix_gets_plotly_deferred_compressed_and_cached(
    browser: Browser, researcher, production_server
):
    hand = make_matrix_topic()
    context = browser.new_context(viewport=LAPTOP)  # a first visit: nothing cached yet
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(production_server + reverse("login"))
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "research-pass-1")
    page.click("form button[type=submit]")
    expect(page.locator("header .account")).to_contain_text("rita")

    scripts: dict[str, Response] = {}
    page.on("response", lambda r: scripts.setdefault(r.url, r) if r.url.endswith(".js") else None)
    url = reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])
    started = time.perf_counter()
    page.goto(f"{production_server}{url}?k=2", wait_until="commit")
    # A loaded machine can take seconds: the figure is printed, never asserted.
    expect(page.locator("#matrix-plot")).to_have_attribute("data-ready", "1", timeout=30_000)
    wall_s = time.perf_counter() - started
    html_ms, plotly_ms, interactive_ms = page.evaluate(TIMINGS)
    print(
        f"\nmatrix page, first visit: interactive after {interactive_ms:.0f} ms from navigation "
        f"start (HTML in {html_ms:.0f} ms, plotly in {plotly_ms:.0f} ms; the rest is the "
        f"browser compiling and running it; {wall_s:.2f} s wall clock)"
    )

    assert page.eval_on_selector("script[src*='plotly']", "s => s.defer") is True
    plotly = next(r for u, r in scripts.items() if "plotly" in u)
    assert re.search(r"/plotly/plotly-cartesian\.min\.[0-9a-f]{12}\.js$", plotly.url)
    headers = plotly.all_headers()
    assert headers.get("content-encoding") in {"gzip", "br"}
    max_age = int(re.search(r"max-age=(\d+)", headers["cache-control"]).group(1))
    assert max_age >= ONE_YEAR_S and "immutable" in headers["cache-control"]
    context.close()
