"""A researcher opens the leaderboard of a collection judged by a judge that gives one rating to
nearly every item: the page says so with the figures, the link leads to the judge's ratings on
the coverage matrix, which says it too, and switching to an informative judge clears it."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.evaluation.crux.degenerate_collection import FLAT, SPREAD, make_flat_collection

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def whitespace_tokenizer(settings):
    settings.TOKENIZER_MODEL = "whitespace"


def test_a_researcher_sees_the_degenerate_judge_warning(
    researcher, login, page_errors, screenshot, live_server
):
    flat = make_flat_collection()
    page = login("rita", "research-pass-1")
    url = reverse("leaderboard", args=[flat.collection.pk])
    # The default judge is the annotator (a person who rated every item): flat-llm is asked for.
    page.goto(f"{live_server.url}{url}?k=2&judge={FLAT}")

    warnings = page.locator(".judge-warnings")
    expect(warnings).to_be_visible()
    constant = warnings.locator('li[data-kind="constant_ratings"]')
    expect(constant).to_contain_text("flat-llm gave 4 to 29 of 30 items in flat (97%)")
    expect(warnings.locator('li[data-kind="tied_runs"]').first).to_contain_text(
        "Every run scores 1.0000 on Coverage@2 under flat-llm"
    )
    # The numbers are still there, below the warning.
    expect(page.locator('#leaderboard-table tr[data-run="r1"]')).to_contain_text("1.0000")
    screenshot("leaderboard-warning")

    # Switching to an informative judge (htmx swaps the table area) clears the warnings.
    page.select_option("select[name=judge]", SPREAD)
    expect(page.locator("#leaderboard-params")).to_contain_text(SPREAD)
    expect(page.locator('.judge-warnings li[data-kind="constant_ratings"]')).to_have_count(0)

    # Back to flat-llm, then follow the link to its ratings on the matrix.
    page.goto(f"{live_server.url}{url}?k=2&judge={FLAT}")
    page.locator('li[data-kind="constant_ratings"] a.judge-warning-link').click()
    expect(page).to_have_url(re.compile(r"/topics/\d+/crux/\?judge=\d+$"))
    matrix_warning = page.locator('.judge-warnings li[data-judge="flat-llm"]')
    expect(matrix_warning).to_contain_text("flat-llm gave 4 to 29 of 30 items of topic t1")
    expect(page.locator("#matrix-plot")).to_have_attribute("data-ready", "1")
    assert page_errors == []
