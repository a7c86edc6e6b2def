"""The Delta-SePer chart in a real browser (issue 34, part 4): the "helps / misleads" notes
beside the zero line never overlap the legend, wherever the zero line falls (deltas of both
signs, all below zero: the zero line at the top, where the legend used to be)."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from evaluation.seper.job import run_seper_job
from evaluation.seper.models import SeperScore
from tests.evaluation.seper.seper_job_data import CountingModels, seper_collection, seper_job

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The boxes of the legend and of each note beside the zero line, and of the whole figure.
BOXES = """() => {
  const plot = document.getElementById("seper-delta-plot");
  const box = (el) => { const b = el.getBoundingClientRect();
    return {left: b.left, right: b.right, top: b.top, bottom: b.bottom}; };
  return {
    legend: box(plot.querySelector(".legend")),
    notes: Array.from(plot.querySelectorAll(".annotation")).map(box),
    texts: Array.from(plot.querySelectorAll(".annotation-text")).map((t) => t.textContent),
    figure: box(plot.querySelector(".main-svg")),
  };
}"""


def overlap(a: dict, b: dict) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and (b["top"] < a["bottom"])
    )


def inside(inner: dict, outer: dict) -> bool:
    return (
        inner["left"] >= outer["left"] - 0.5
        and inner["right"] <= outer["right"] + 0.5
        and inner["top"] >= outer["top"] - 0.5
        and inner["bottom"] <= outer["bottom"] + 0.5
    )


@pytest.mark.parametrize("signs", ["as scored", "all below zero", "all above zero"])
def test_the_sign_notes_never_overlap_the_legend(
    researcher, login, page_errors, screenshot, live_server, signs
):
    data = seper_collection()
    run_seper_job(seper_job(data), CountingModels().models())
    passages = SeperScore.objects.filter(topic=data.topic, context_kind="passage")
    assert passages.count() >= 2
    if signs != "as scored":
        sign = -1 if signs == "all below zero" else 1
        for i, row in enumerate(passages):
            row.delta_s, row.delta_h = sign * (0.2 + 0.1 * i), sign * (0.1 + 0.05 * i)
            row.save(update_fields=["delta_s", "delta_h"])
    page = login("rita", "research-pass-1")
    page.goto(live_server.url + reverse("seper-topic", args=[data.collection.pk, data.topic.pk]))
    expect(page.locator("#seper-delta-plot .legend")).to_have_count(1)
    boxes = page.evaluate(BOXES)
    assert boxes["texts"] == ["↑ helps", "↓ misleads"]
    for text, note in zip(boxes["texts"], boxes["notes"], strict=True):
        assert not overlap(note, boxes["legend"]), f"{text!r} overlaps the legend ({signs})"
        assert inside(note, boxes["figure"]), f"{text!r} is cut off ({signs})"
    assert inside(boxes["legend"], boxes["figure"])
    screenshot(f"seper_delta_chart_{signs.replace(' ', '_')}")
    assert page_errors == []
