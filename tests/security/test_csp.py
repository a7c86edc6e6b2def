"""Content-Security-Policy (django-csp): scripts only from this site, no inline script or
event handler in any served template, no remote origin anywhere in the policy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.project_files import files_in, template_folders

# The agreement and judge reports are self-contained downloads (plotly and their figures
# inline, from the shell both extend), opened from disk, never served as a page.
STANDALONE = {
    "_partials/report_export.html",
    "evaluation/agreement/export.html",
    "evaluation/judge_report/export.html",
}
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.IGNORECASE)


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    directives = (part.strip().split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in directives}


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "researcher"])
def test_pages_carry_a_policy_that_allows_only_this_sites_scripts(client, researcher, who):
    if who == "researcher":
        client.force_login(researcher)
    for url in [reverse("login"), reverse("home"), "/no-such-page/"]:
        directives = policy(client.get(url))
        assert directives["script-src"] == ["'self'"], url
        assert directives["default-src"] == ["'self'"]
        assert directives["object-src"] == ["'none'"]
        assert directives["frame-ancestors"] == ["'none'"]
        assert directives["base-uri"] == ["'self'"] and directives["form-action"] == ["'self'"]
        sources = [source for values in directives.values() for source in values]
        assert not [s for s in sources if "://" in s or s in {"*", "http:", "https:"}]
        assert "'unsafe-eval'" not in sources
        # Inline styles only (plotly, htmx and the progress bars set them), no inline script.
        assert [d for d, v in directives.items() if "'unsafe-inline'" in v] == ["style-src"]


def served_templates() -> list[tuple[str, Path]]:
    """(name, path) of every template of the project, the root's and each app's folder's."""
    return [
        (name, path)
        for name, path in files_in(template_folders(), "*.html")
        if name not in STANDALONE
    ]


def test_no_served_template_has_an_inline_script_or_event_handler():
    inline = []
    for name, path in served_templates():
        text = path.read_text()
        for match in SCRIPT_TAG.finditer(text):
            attributes = match.group(1)
            if "src=" not in attributes and "application/json" not in attributes:
                inline.append(f"{name}: <script{attributes}>")
        inline += [f"{name}: {m.group(0)}" for m in EVENT_HANDLER.finditer(text)]
        if "javascript:" in text:
            inline.append(f"{name}: javascript: URL")
    assert inline == []
    names = [name for name, _ in served_templates()]
    assert len(names) > 50  # the scan did find the templates, the methods' folders' too
    assert "base.html" in names and "evaluation/crux/topic_matrix.html" in names


@pytest.mark.django_db
def test_the_upload_page_loads_its_script_from_static(researcher_client):
    html = researcher_client.get(reverse("upload")).content.decode()
    assert re.search(r'<script src="/static/js/upload\.js">', html)
    assert "<script>" not in html
