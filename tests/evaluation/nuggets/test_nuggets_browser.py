"""A researcher opens the nugget page from the collection page: the "where lost" stacked bars
are drawn by the local plotly (one segment per category, every run), and the per-topic table
leads to the topic's drill-down."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from crux_app.models import Collection
from tests.evaluation.nuggets.test_nugget_commands import load_loss_topic
from tests.evaluation.nuggets.test_nugget_imports import NAME

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TRACES = """() => {
  const gd = document.getElementById("nuggets-losses-plot");
  return gd && gd.data ? gd.data.map((t) => [t.name, t.y]) : null;
}"""


def test_researcher_sees_the_stacked_bars_and_drills_down(
    researcher, login, page_errors, live_server, tmp_path
):
    load_loss_topic(tmp_path)
    collection = Collection.objects.get(name=NAME)
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("collection-detail", args=[collection.pk]))
    page.click("a:text-is('Nuggets')")
    expect(page.locator("#nuggets-losses-plot .main-svg").first).to_be_visible()
    page.wait_for_function(f"({TRACES})() !== null")
    assert page.evaluate(TRACES) == [
        ["retrieval miss", [1, 2]],
        ["generation drop", [1, 1]],
        ["unsupported", [1, 1]],
        ["delivered", [1, 0]],
    ]
    page.click("#nuggets-topics a:text('t1')")
    expect(page.locator("#nugget-runa-0 .nugget-category")).to_have_text("delivered")
    expect(page.locator("#nugget-runa-3 .nugget-category")).to_have_text("retrieval miss")
    assert page_errors == []
