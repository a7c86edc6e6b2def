"""Every chart's plotly config names this site for map data (topojson), never plotly's CDN:
js/plot_config.js sets the default once for every chart of a page, whatever config the
drawing script passes (the coverage matrix passes its own)."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.evaluation.crux.matrix_seed import make_matrix_topic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The config plotly drew the chart with (its defaults merged with the script's own).
TOPOJSON_URL = '() => document.getElementById("matrix-plot")._context.topojsonURL'


def test_the_matrix_chart_takes_map_data_from_this_site(
    researcher, login, page_errors, live_server
):
    hand = make_matrix_topic()
    page = login("rita", "research-pass-1")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    url = reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])
    page.goto(f"{live_server.url}{url}?k=2")
    expect(page.locator("#matrix-plot")).to_have_attribute("data-ready", "1")
    assert page.evaluate(TOPOJSON_URL) == f"{live_server.url}/static/plotly/topojson/"
    assert all(r.startswith(live_server.url) for r in requested), requested
    assert not page_errors
