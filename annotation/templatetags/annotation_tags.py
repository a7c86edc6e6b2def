"""Template filters of the annotation pages: guideline Markdown, times, percentages."""

import markdown
import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# What rendered Markdown may contain: the tags Markdown itself writes, with only the attributes
# it needs. Links and images keep http, https and mailto URLs and relative ones; any other
# scheme (javascript:, data:, vbscript:, ...) loses its href / src.
MARKDOWN_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s", "strong",
    "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
MARKDOWN_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "td": {"align"},
    "th": {"align"},
}
URL_SCHEMES = {"http", "https", "mailto"}


def sanitize_html(html: str) -> str:
    """``html`` reduced to the allow-list above (nh3); links get rel="noopener noreferrer"."""
    return nh3.clean(
        html,
        tags=MARKDOWN_TAGS,
        clean_content_tags={"script", "style"},
        attributes=MARKDOWN_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        strip_comments=True,
    )


def render_markdown(source: str) -> str:
    """Markdown as sanitised HTML: raw HTML in it is shown as text, never run, and a link or
    image with a scheme other than http, https or mailto keeps its text but loses its URL."""
    # Escaping "<" and "&" first turns any tag into text while Markdown syntax still works.
    escaped = (source or "").replace("&", "&amp;").replace("<", "&lt;")
    return sanitize_html(markdown.markdown(escaped, extensions=["sane_lists"]))


@register.filter
def guidelines_html(source: str) -> SafeString:
    """Render guideline Markdown, sanitised (see ``render_markdown``)."""
    return mark_safe(render_markdown(source))  # noqa: S308


@register.filter
def seconds(ms: float | None) -> str:
    """Milliseconds as seconds with one decimal, or a dash when there is no figure."""
    return "–" if ms is None else f"{ms / 1000:.1f} s"


@register.filter
def percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


@register.filter
def share(part: int, whole: int) -> int:
    """``part`` as a whole percentage of ``whole`` (0 when there is nothing)."""
    return int(100 * part / whole) if whole else 0
