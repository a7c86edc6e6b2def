"""A researcher opens a question's DENSE page: the uncertainty graph is drawn with one node per
response, hovering a node shows its response and rephrased chunk, and a judgment form stores a
label through htmx without a page load."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from evaluation.dense.models import DenseLabel
from tests.evaluation.dense.job_data import RuleModels, make_dense_data, run_job

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NODES = """() => {
  const gd = document.getElementById("dense-graph-plot");
  const trace = gd && gd.data && gd.data.find((t) => t.name === "responses");
  return trace ? trace.text : null;
}"""

NODE_CENTRE = """(i) => {
  const gd = document.getElementById("dense-graph-plot");
  const trace = gd.data.find((t) => t.name === "responses");
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const box = gd.getBoundingClientRect();
  return [box.left + xa._offset + xa.l2p(trace.x[i]), box.top + ya._offset + ya.l2p(trace.y[i])];
}"""


def test_researcher_opens_a_question_graph_and_judges_a_rephrase(
    researcher, login, page_errors, screenshot, live_server
):
    data = make_dense_data()
    run_job(data, RuleModels().models())
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("collection-detail", args=[data.collection.pk]))
    page.click("text=DENSE uncertainty")
    page.click("#dense-questions a:text('q1')")
    expect(page.locator("#dense-dse")).to_have_text("0.693")
    expect(page.locator("#dense-label")).to_have_text("uncertain")
    expect(page.locator("#dense-graph-plot .main-svg").first).to_be_visible()
    page.wait_for_function(f"({NODES})() !== null")
    assert page.evaluate(NODES) == ["r0", "r1", "r2", "r3"]

    x, y = page.evaluate(NODE_CENTRE, 1)
    page.mouse.move(x, y)
    expect(page.locator("#dense-graph-plot .hovertext")).to_contain_text("The capital is Lyon.")

    row = page.locator('#dense-chunks tr[data-chunk="1"]')
    expect(row.locator("td.label-necessary")).to_have_text("necessary")
    row.locator("button[value=no]").click()
    expect(row.locator("[data-judged]")).to_have_text("you said no (saved)")
    label = DenseLabel.objects.get()
    assert (label.kind, label.i, label.value, label.machine_decision) == (
        "rephrase_faithful",
        1,
        False,
        False,
    )
    screenshot("dense-question")
    assert page_errors == []
