"""Pages work under the Content-Security-Policy in a real Chromium: the scripts moved out of
the templates run (upload form, agreement plots and rows), and no page reports a violation.
Every other browser test runs under the same policy (tests/security/test_csp.py checks the
header and the templates)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from crux_app.models import Judge, Judgment
from tests.crux_app.factories import make_collection, make_judge, make_passages, make_topic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every violation the page reports, whether or not it also reaches the console.
WATCH_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(
    `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def violations(tab: Page) -> list[str]:
    return tab.evaluate("window.__cspViolations")


def agreement_collection():
    collection = make_collection("csp")
    topic = make_topic(collection, "t1", n_subquestions=2)
    passages = make_passages(collection, "t1", 3)
    llm, human = make_judge("llm"), make_judge("h1", kind=Judge.Kind.HUMAN)
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
    return collection


def test_pages_work_under_the_policy(researcher, login, page, page_errors, live_server):
    researcher.is_staff = True
    researcher.save()
    collection = agreement_collection()
    page.add_init_script(WATCH_VIOLATIONS)
    login("rita", "research-pass-1")

    # Upload: static/js/upload.js shows the chosen format's fields only.
    page.goto(live_server.url + reverse("upload"))
    page.select_option("#id_format", "run")
    expect(page.locator('.param[data-name="run_name"]')).to_be_visible()
    expect(page.locator('.param[data-name="split"]')).to_be_hidden()
    expect(page.locator('.source[data-source="file"]')).to_be_visible()
    expect(page.locator('.source[data-source="folder"]')).to_be_hidden()
    assert violations(page) == []

    # Agreement: static/js/plots.js draws the figures with the local plotly, each loaded when
    # scrolled to.
    page.goto(live_server.url + reverse("agreement", args=[collection.pk]) + "?resamples=20")
    page.locator("#confusion-0").scroll_into_view_if_needed()
    expect(page.locator("[data-plotly-figure] .main-svg").first).to_be_visible()
    drawn = page.locator("[data-plotly-figure] .main-svg")
    assert drawn.count() >= 1
    rows = page.locator("#disagreement-table tr[data-href]")
    if rows.count():  # static/js/agreement.js: a row opens its coverage matrix
        rows.first.locator("td").first.click()
        expect(page).to_have_url(re.compile(r"/topics/\d+/crux/"))
    assert violations(page) == []

    # Admin, and the plain error page.
    page.goto(live_server.url + reverse("admin:index"))
    expect(page.locator("#site-name")).to_be_visible()
    assert violations(page) == []
    page.goto(live_server.url + "/no-such-page/")
    expect(page.locator("h1")).to_have_text("Page not found")
    assert violations(page) == []
    # 404 logs a console error for the document itself; nothing else may.
    assert [e for e in page_errors if "404" not in e] == []


def test_the_lockout_page_under_the_policy(researcher, page, page_errors, live_server):
    page.add_init_script(WATCH_VIOLATIONS)
    for attempt in range(5):
        page.goto(live_server.url + reverse("login"))
        page.fill("input[name=username]", "rita")
        page.fill("input[name=password]", f"wrong-{attempt}")
        page.click("form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Too many failed logins")
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "research-pass-1")
    page.click("form button[type=submit]")
    expect(page.locator("#lockout")).to_contain_text("locked for 15 minutes")
    assert violations(page) == []
    assert [e for e in page_errors if "429" not in e and "400" not in e] == []
