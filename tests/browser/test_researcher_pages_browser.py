"""A researcher's first hour, in a real browser: the coverage matrix's hover and keys, one
place per topic for every method, the SePer topic page, the agreement page and the favicon."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from annotation.models import Campaign
from crux_app.models import Judge, Judgment
from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic
from tests.evaluation.agreement.test_agreement_layout import LONG_JUDGE
from tests.evaluation.crux.matrix_seed import make_matrix_topic
from tests.evaluation.crux.test_matrix_browser import click_cell
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job
from tests.evaluation.topic_summary_seed import make_summary_topics

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CELL_CENTRE = """([col, row]) => {
  const gd = document.getElementById("matrix-plot");
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const box = gd.getBoundingClientRect();
  return [box.left + xa._offset + xa.l2p(col), box.top + ya._offset + ya.l2p(row)];
}"""


def hover_cell(page: Page, col: int, row: int) -> None:
    x, y = page.evaluate(CELL_CENTRE, [col, row])
    page.mouse.move(x, y)


def test_matrix_hover_names_the_cell_and_every_judge(researcher, login, page_errors, live_server):
    hand = make_matrix_topic()
    page = login("rita", "research-pass-1")
    url = reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])
    page.goto(f"{live_server.url}{url}?k=2")
    expect(page.locator("#matrix-plot")).to_have_attribute("data-ready", "1")

    # Column 1 is bm25's second passage (p1), row 0 is position 0.
    hover_cell(page, 1, 0)
    tooltip = page.locator("#matrix-plot .hoverlayer .hovertext")
    expect(tooltip).to_contain_text("0. What is aspect 0 of m1?")
    expect(tooltip).to_contain_text("passage m1:0#1 · rank #2 in bm25")
    expect(tooltip).to_contain_text("llm-a (shown): 5")
    expect(tooltip).to_contain_text("llm-b: not judged")
    expect(tooltip).to_contain_text("annotator1: 1")
    expect(tooltip).to_contain_text("human: other side of tau")
    expect(page.locator("#matrix-hover")).to_contain_text("annotator1: 1")

    # The columns after the top-2 are labelled too: run positions, then a passage id.
    ticks = page.locator("#matrix-plot .xtick text").all_text_contents()
    assert ticks == ["#1", "#2", "#3", "#4", "m1:0#2"]
    assert page_errors == []


def test_matrix_keys_move_open_and_jump_to_the_next_cell_to_check(
    researcher, login, page_errors, screenshot, live_server
):
    hand = make_matrix_topic()
    page = login("rita", "research-pass-1")
    url = reverse("crux-topic", args=[hand.topic.collection_id, hand.topic.pk])
    page.goto(f"{live_server.url}{url}?k=2")
    plot = page.locator("#matrix-plot")
    expect(plot).to_have_attribute("data-ready", "1")
    line = page.locator("#matrix-hover")
    panel = page.locator("#cell-panel")

    # A click opens the first cell and puts the keyboard on the matrix.
    click_cell(page, 0, 0)
    expect(panel.locator("#cell-question")).to_have_text("0. What is aspect 0 of m1?")
    expect(plot).to_be_focused()
    # A keyboard user's mouse rests off the plot: one resting on a cell competes with the
    # keys for the tooltip (Chromium replays its position after each redraw).
    page.mouse.move(0, 0)
    page.keyboard.press("ArrowRight")
    expect(plot).to_have_attribute("data-cursor", "0,1")
    page.keyboard.press("ArrowDown")
    expect(plot).to_have_attribute("data-cursor", "1,1")
    expect(line).to_contain_text("1. What is aspect 1 of m1?")
    expect(line).to_contain_text("passage m1:0#1 · rank #2 in bm25")
    expect(line).to_contain_text("llm-a (shown): 2")
    # The tooltip a mouse would show follows the keyboard too.
    tooltip = page.locator("#matrix-plot .hoverlayer .hovertext")
    expect(tooltip).to_contain_text("passage m1:0#1 · rank #2 in bm25")
    expect(tooltip).to_contain_text("llm-a (shown): 2")
    page.keyboard.press("Enter")
    expect(panel.locator("#cell-question")).to_have_text("1. What is aspect 1 of m1?")
    expect(panel.locator("#cell-passage-text")).to_contain_text("Passage 1 of m1.")

    # n: the next cell that is unjudged or where a human disagrees, in reading order.
    page.keyboard.press("n")
    expect(plot).to_have_attribute("data-cursor", "1,2")
    expect(line).to_contain_text("human: other rating")
    page.keyboard.press("n")
    expect(plot).to_have_attribute("data-cursor", "1,4")
    expect(line).to_contain_text("not judged")
    page.keyboard.press("Enter")
    expect(panel.locator("#cell-passage-text")).to_contain_text("Passage 2 of m1.")

    # Rate it from the keyboard; the matrix reloads and its keys keep working. htmx wires the
    # swapped-in form up after its settle delay: a person's keys come later than a script's.
    page.wait_for_function(
        "() => { const f = document.querySelector('#expert-form');"
        " return f && f['htmx-internal-data'] !== undefined; }"
    )
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    expect(panel.locator("#rating-saved")).to_have_text("Your rating was saved.")
    expect(plot).to_be_focused()
    page.keyboard.press("n")
    expect(plot).to_have_attribute("data-cursor", "2,0")
    expect(line).to_contain_text("unparsable")
    page.keyboard.press("N")
    expect(plot).to_have_attribute("data-cursor", "1,4")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot("matrix_keyboard")
    assert page_errors == []


def test_topic_page_sums_up_every_method_and_links_each(
    researcher, login, page_errors, screenshot, live_server
):
    data = make_summary_topics()
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("topic-detail", args=[data.collection.pk, data.topic.pk]))
    cards = page.locator("#topic-methods article.topic-summary")
    expect(cards).to_have_count(6)
    crux = page.locator('[data-summary="crux"]')
    expect(crux.locator('tr[data-run="bm25"]')).to_contain_text("1.00")
    expect(crux.locator('tr[data-run="dense-run"]')).to_contain_text("0.00")
    expect(page.locator('[data-summary="dense"]')).to_contain_text("1 necessary · 2 unnecessary")
    expect(page.locator('[data-summary="scaar"]')).to_contain_text("2 / 3 sentences")
    expect(page.locator('[data-summary="reteval"] .category')).to_have_text("D")
    expect(page.locator('[data-summary="nuggets"] tr[data-run="rag-bm25"]')).to_be_visible()
    screenshot("topic_summaries")

    # A run's coverage opens the matrix of that run; the SePer title opens the SePer page.
    crux.get_by_role("link", name="dense-run").click()
    expect(page.locator("#coverage-line")).to_contain_text("Coverage of dense-run top-10")
    page.go_back()
    page.locator('[data-summary="seper"] h3 a').click()
    expect(page.locator("h1")).to_have_text("SePer · topic q1")
    page.go_back()
    page.locator('[data-summary="reteval"]').get_by_role("link", name="bm25 top-2").click()
    expect(page.locator("#result-bm25-2")).to_be_in_viewport()

    # A topic with nothing stored says which job fills each summary, and links its start.
    page.goto(live_server.url + reverse("topic-detail", args=[data.collection.pk, data.bare.pk]))
    expect(page.locator("#topic-methods .empty-state")).to_have_count(6)
    dense = page.locator('[data-summary="dense"]')
    expect(dense).to_contain_text("the DENSE job fills this")
    dense.get_by_role("link", name="Start it").click()
    expect(page).to_have_url(re.compile(rf"/collections/{data.collection.pk}/dense/start/$"))
    assert page_errors == []


def test_seper_page_lists_each_sample_once_and_explains_the_sign(
    researcher, login, page_errors, screenshot, live_server
):
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    baseline = SeperScore.objects.get(topic=data.topic, context_kind="none", subquestion=None)
    n_samples = len(baseline.detail["responses"])
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("seper-topic", args=[data.collection.pk, data.topic.pk]))

    caption = page.locator("#seper-delta-caption")
    expect(caption).to_contain_text("Above 0: the passage made the right answer more likely")
    plot = page.locator("#seper-delta-plot")
    expect(plot.locator(".annotation-text").first).to_have_text("↑ helps")
    expect(plot.locator(".annotation-text").nth(1)).to_have_text("↓ misleads")

    # Every sample of the no-context run, once, under its cluster.
    table = page.locator("#clusters-baseline table.seper-clusters")
    rows = table.locator("tr.seper-response")
    expect(rows).to_have_count(n_samples)
    listed = [rows.nth(i).get_attribute("data-response") for i in range(n_samples)]
    assert sorted(map(int, listed)) == list(range(n_samples))
    expect(table.locator("tr.cluster-head")).to_have_count(2)
    expect(page.locator("details.seper-responses")).to_have_count(0)  # no second listing

    # Judging one sample still works where it now sits.
    first = rows.first
    first.get_by_role("button", name="Yes").click()
    expect(first.locator("[data-judged]")).to_contain_text("you said yes")
    screenshot("seper_topic")
    assert page_errors == []


TITLE_INSIDE = """() => Array.from(document.querySelectorAll("[data-plotly-figure]")).map((el) => {
  const svg = el.querySelector(".main-svg").getBoundingClientRect();
  const title = el.querySelector(".gtitle").getBoundingClientRect();
  const xtitle = el.querySelector(".xtitle").getBoundingClientRect();
  return title.left >= svg.left - 0.5 && title.right <= svg.right + 0.5 && title.top >= svg.top
    && xtitle.left >= svg.left - 0.5 && xtitle.right <= svg.right + 0.5
    && xtitle.bottom <= svg.bottom + 0.5;
})"""


ALL_DRAWN = """() => Array.from(document.querySelectorAll("[data-plotly-figure]"))
  .every((el) => el.querySelector(".gtitle"))"""


def agreement_data():
    collection = make_collection("agreement browser")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    llm, human = make_judge(LONG_JUDGE), make_judge("h1", kind=Judge.Kind.HUMAN)
    Judgment.objects.bulk_create(
        Judgment(
            judge=j,
            topic=topic,
            subquestion=sq,
            passage=p,
            task="passage_rating",
            rating=(i * 2 + sq.position + (j == llm) * 3) % 6,
        )
        for j in (llm, human)
        for sq in topic.subquestions.all()
        for i, p in enumerate(passages)
    )
    Campaign.objects.create(
        name="Wave 1", slug="wave-1", collection=collection, task_type="passage_rating"
    )
    return collection


def test_agreement_page_reads_in_one_pass(
    researcher, login, page_errors, screenshot, live_server, tmp_path
):
    collection = agreement_data()
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("agreement", args=[collection.pk]) + "?resamples=20")

    # The confusion matrix loads when scrolled to; its title stays inside its figure, whatever
    # the judge's name.
    expect(page.locator("[data-plotly-figure]")).to_have_count(0)
    page.locator("#confusion-0").scroll_into_view_if_needed()
    expect(page.locator("[data-plotly-figure] .gtitle").first).to_be_visible()
    page.wait_for_function(ALL_DRAWN)  # each loaded figure drawn, not just the first
    # The figure scrolled to keeps its titles inside. (Known issue, issue #37's notes: a
    # neighbour revealed in the same moment laid its titles out below its plot in two CI runs
    # under load, never alone or under a CPU hog here; plots.js now draws each slot's figures on
    # the frame after its own swap settles.)
    assert page.evaluate(TITLE_INSIDE)[0]
    expect(page.locator("[data-plotly-figure] .gtitle").first).to_contain_text("Llama-3.1-70B")

    # Tasks without data: one line.
    expect(page.locator("#tasks-without-data")).to_contain_text("No data yet: ")
    expect(page.locator("#agreement-tasks tbody tr")).to_have_count(2)

    # The table of contents jumps to a section.
    page.locator("#agreement-toc").get_by_role("link", name="Per annotator").click()
    expect(page).to_have_url(re.compile(r"#per-annotator$"))
    expect(page.locator("#per-annotator h2")).to_be_in_viewport()
    screenshot("agreement")

    # The HTML report, opened from disk: same contents, titles inside their figures too.
    with page.expect_download() as download:
        page.locator("#export-html").click()
    assert download.value.suggested_filename == "agreement-agreement-browser-tau3.html"
    report = tmp_path / download.value.suggested_filename
    download.value.save_as(report)
    page.goto(report.as_uri())
    expect(page.locator("#agreement-toc")).to_be_visible()
    expect(page.locator("[data-plotly-figure] .gtitle").first).to_be_visible()
    assert all(page.evaluate(TITLE_INSIDE))

    # The campaign is chosen from a dropdown; the exports then carry campaign and tau.
    page.go_back()
    page.select_option("select[name=campaign]", label="Wave 1")
    page.locator("#agreement-controls button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("campaign Wave 1")
    with page.expect_download() as download:
        page.locator("#export-csv").click()
    name = download.value.suggested_filename
    assert name == "agreement-agreement-browser-campaign-wave-1-tau3.csv"
    assert page_errors == []


def test_every_page_has_an_icon(page, page_errors, live_server):
    page.goto(live_server.url + reverse("login"))
    href = page.locator('link[rel="icon"]').get_attribute("href")
    icon = page.request.get(live_server.url + href)
    assert icon.ok and icon.body()[:4] == b"\x00\x00\x01\x00"  # an ICO file
    # The path browsers try by default answers with the same icon (it was a 404).
    response = page.request.get(live_server.url + "/favicon.ico")
    assert response.ok and response.body() == icon.body()
    assert page_errors == []
