"""Every table of the site's templates sits in the one shared ``.table-scroll`` box (issue 34,
part 4): a wide table scrolls sideways in its own box and never makes the whole page wider than
the window (tests/browser/test_wide_tables_browser.py measures it)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = '<div class="table-scroll">'
TAGS = re.compile(r"<table\b|</table>")


def project_templates() -> list[Path]:
    skipped = {".venv", "staticfiles", "node_modules", ".git"}
    return sorted(
        path
        for path in ROOT.glob("**/templates/**/*.html")
        if not skipped & set(path.relative_to(ROOT).parts)
    )


def unwrapped_tables(text: str) -> list[int]:
    """Line numbers of outermost tables not directly inside ``.table-scroll``."""
    lines, depth = [], 0
    for match in TAGS.finditer(text):
        if match.group() == "</table>":
            depth -= 1
            continue
        if depth == 0 and not text[: match.start()].rstrip().endswith(WRAPPER):
            lines.append(text.count("\n", 0, match.start()) + 1)
        depth += 1
    return lines


def test_every_table_scrolls_in_its_own_box() -> None:
    templates = project_templates()
    assert len(templates) > 50  # the glob found the project's templates
    missing = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in templates
        for line in unwrapped_tables(path.read_text(encoding="utf-8"))
    ]
    assert missing == [], f"tables outside {WRAPPER}: {missing}"


def test_the_check_sees_an_unwrapped_table_and_ignores_a_nested_one() -> None:
    text = f"<p>\n<table><tr><td><table></table></td></tr></table>\n{WRAPPER}<table></table></div>"
    assert unwrapped_tables(text) == [2]
