"""A researcher opens a topic's coverage matrix, clicks a heatmap cell, reads the drill-down
panel and records a rating with the keyboard; the matrix then marks the cell."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from crux_app.models import Judgment
from tests.accessibility import assert_accessible
from tests.evaluation.crux.matrix_seed import make_matrix_topic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CELL_CENTRE = """([col, row]) => {
  const gd = document.getElementById("matrix-plot");
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const box = gd.getBoundingClientRect();
  return [box.left + xa._offset + xa.l2p(col), box.top + ya._offset + ya.l2p(row)];
}"""

MARKED = """([name, col, row]) => {
  const gd = document.getElementById("matrix-plot");
  const trace = gd && gd.data && gd.data.find((t) => t.name === name);
  return Boolean(trace) && trace.x.some((x, i) => x === col && trace.y[i] === row);
}"""


def click_cell(page: Page, col: int, row: int) -> None:
    """A real mouse click at the cell's pixel centre, computed from the plot's axes."""
    x, y = page.evaluate(CELL_CENTRE, [col, row])
    page.mouse.click(x, y)


def test_researcher_clicks_a_cell_and_rates_it(
    researcher, login, page_errors, screenshot, live_server
):
    hand = make_matrix_topic()
    passage = hand.passages[3]
    page = login("rita", "research-pass-1")
    url = reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])
    page.goto(f"{live_server.url}{url}?k=2")
    expect(page.locator("#matrix-plot")).to_have_attribute("data-ready", "1")
    expect(page.locator("#coverage-line")).to_contain_text("top-2 at τ=3")
    assert not page.evaluate(MARKED, ["human: other side of tau", 0, 1])
    assert_accessible(page)

    # Column 0 is bm25's first passage (p3), row 1 is position 1; llm-a rated it 3.
    click_cell(page, 0, 1)
    panel = page.locator("#cell-panel")
    expect(panel.locator("#cell-question")).to_have_text("1. What is aspect 1 of m1?")
    expect(panel.locator("#cell-passage-text")).to_contain_text("Passage 3 of m1.")
    expect(panel.locator('tr[data-judge="llm-a"] .rating')).to_contain_text("3")
    expect(panel.locator('tr[data-judge="llm-a"] .raw-output')).to_have_text("Rating: 3")
    assert_accessible(page)  # with the cell's panel open

    # Select the passage's first words with the mouse: they become the rationale.
    box = panel.locator("#cell-passage-text").bounding_box()
    page.mouse.move(box["x"] + 12, box["y"] + 14)
    page.mouse.down()
    page.mouse.move(box["x"] + 110, box["y"] + 14, steps=5)
    page.mouse.up()
    expect(panel.locator("textarea[name=rationale]")).not_to_have_value("")

    page.keyboard.press("0")
    expect(panel.locator('input[name=rating][value="0"]')).to_be_checked()
    page.keyboard.press("Enter")
    expect(panel.locator("#rating-saved")).to_have_text("Your rating was saved.")
    expect(panel.locator('tr[data-judge="rita"] .rating')).to_contain_text("0")

    # The matrix reloads and marks the cell: 0 is on the other side of tau from llm-a's 3.
    page.wait_for_function(MARKED, arg=["human: other side of tau", 0, 1])
    judgment = Judgment.objects.get(judge__user=researcher)
    assert (judgment.rating, judgment.subquestion_id, judgment.passage_id) == (
        0,
        hand.subquestions[1].pk,
        passage.pk,
    )
    assert judgment.rationale and judgment.rationale_start is not None
    assert passage.text[judgment.rationale_start : judgment.rationale_end] == judgment.rationale
    assert 0 < judgment.time_spent_ms < 60_000

    page.evaluate("window.scrollTo(0, 0)")
    shot = screenshot("matrix")
    assert shot.stat().st_size > 20_000
    assert page_errors == []


def test_selectors_swap_the_matrix_and_keep_the_url(researcher, login, page_errors, live_server):
    hand = make_matrix_topic()
    page = login("rita", "research-pass-1")
    url = reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])
    page.goto(f"{live_server.url}{url}?k=2")
    expect(page.locator("#coverage-line")).to_contain_text("1.00")
    page.select_option("select[name=tau]", "4")
    expect(page.locator("#coverage-line")).to_contain_text("top-2 at τ=4")
    expect(page.locator("#coverage-line")).to_contain_text("0.50")
    expect(page).to_have_url(re.compile(r"tau=4"))
    expect(page.locator("#matrix-plot")).to_have_attribute("data-ready", "1")
    # An invalid rating through the browser shows the field error in the panel.
    click_cell(page, 1, 0)
    expect(page.locator("#cell-question")).to_contain_text("0. What is aspect 0 of m1?")
    page.locator("#expert-form button[type=submit]").click()
    expect(page.locator('#cell-panel .field-error[data-field="rating"]')).to_have_text(
        "Choose a rating from 0 to 5."
    )
    assert not Judgment.objects.filter(judge__user=researcher).exists()
    assert page_errors == []
