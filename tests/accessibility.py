"""axe-core in the browser tests: ``assert_accessible(page)`` fails on serious or critical
violations of the page as it is now.

axe-core is vendored in tests/data/axe/ (MPL-2.0, see its README) and injected into the page
under test as inline script content through the DevTools protocol, which the site's CSP
(scripts from the site only) does not govern; the site never serves it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parent / "data" / "axe" / "axe.min.js"
BLOCKING = ("serious", "critical")

# Runs axe on the document; the rules are axe's defaults (WCAG 2.x A and AA and best
# practices). Returns the violations with the nodes they were found on.
RUN_AXE = """async (selector) => {
  const result = await axe.run(selector || document, { resultTypes: ["violations"] });
  return {
    version: axe.version,
    passes: result.passes.length,
    violations: result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary),
    })),
  };
}"""


@cache
def axe_source() -> str:
    return AXE.read_text(encoding="utf-8")


def axe_violations(page: Page, selector: str | None = None) -> list[dict]:
    """Every axe-core violation on ``page`` (within ``selector`` if given), any impact."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # evaluate, not add_script_tag: a <script> element would be subject to the page's CSP.
        page.evaluate(axe_source() + "\n;window.axe = axe;")
    result = page.evaluate(RUN_AXE, selector)
    assert result["version"].startswith("4."), result["version"]  # axe really ran
    assert result["passes"] > 0, "axe-core checked nothing"
    return result["violations"]


def assert_accessible(page: Page, selector: str | None = None) -> None:
    """Fail, listing them, on serious or critical axe-core violations of the page."""
    blocking = [v for v in axe_violations(page, selector) if v["impact"] in BLOCKING]
    report = "\n".join(
        f"{v['impact']} {v['id']} ({v['help']}):\n    " + "\n    ".join(v["nodes"][:5])
        for v in blocking
    )
    assert not blocking, f"axe-core on {page.url}:\n{report}"
