"""The demo's researcher pages, API answers and exports, rendered and normalised for the
snapshot test (``test_demo_snapshots.py``).

Pages are found by crawling from the navigation's pages (every same-site link, GET only),
the API's collection endpoints from the URL patterns, and the export commands from the
collections' judges. Only ``django``, ``crux_app.models`` and ``annotation.models`` are
imported, so a checkout from before a refactor renders the same set with the same rules.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections import deque
from collections.abc import Iterator
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from django.core.management import CommandError, call_command, get_commands
from django.db import connection
from django.test import Client
from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse

# Pages reached from these by links; the nav's pages (a new nav link is followed by itself).
SEEDS = (
    "/",
    "/collections/",
    "/jobs/",
    "/jobs/table/",
    "/campaigns/",
    "/campaigns/reviews/",
    "/annotate/",
    "/review/",
    "/webhooks/",
)
# Not the demo's pages: Django's and DRF's own, files, and GETs that change state (the
# workspace's ``next`` hands out an item; a review workspace claims one).
SKIPPED = re.compile(
    r"^/(static/|admin/|accounts/|api/v1/(schema|docs|redoc)/|annotate/.|review/.|favicon)"
)
# A page's query-string variants (sorting, filters, paging) beyond this many are not
# followed: the first ones cover each view; the cap keeps the crawl bounded.
VARIANTS_PER_PATH = 4
MAX_PAGES = 800


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)


def links(page_url: str, html: str) -> list[str]:
    """The same-site links of a page, absolute paths with their query, fragments dropped."""
    parser = _Links()
    parser.feed(html)
    found = []
    for href in parser.links:
        if href.startswith(("#", "mailto:", "javascript:")):
            continue
        parts = urlsplit(urljoin(page_url, href))
        if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
            continue
        query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
        found.append(parts.path + (f"?{query}" if query else ""))
    return found


# ---- Normalisation: what legitimately differs between two renderings of the same data ----

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+'), r"\1CSRF"),
    (re.compile(r'("?csrf[_-]?token"?\s*[:=]\s*["\'])[^"\']+', re.I), r"\1CSRF"),
    (re.compile(r'(nonce=")[^"]+'), r"\1NONCE"),
    (re.compile(r"('nonce-)[^']+"), r"\1NONCE"),
    # collected static files' content hashes (tests name source files; production may not)
    (re.compile(r"(/static/[^\"' )]+?)\.[0-9a-f]{12}(\.[a-z0-9]+)"), r"\1\2"),
    (
        re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
        "TIMESTAMP",
    ),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "DATE"),
    (
        re.compile(
            r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, \d{4}"
            r"(?:, \d{1,2}(?::\d{2})? [ap]\.m\.| \d{1,2}:\d{2})?"
        ),
        "DATE",
    ),
    (re.compile(r"\b\d+\xa0(?:minutes?|hours?|seconds?|days?)"), "AGE"),
    # the live banner (crux_app.freshness): the data version and time a page was computed from
    (re.compile(r"\b(since=)[0-9a-f]{32}"), r"\1VERSION"),
    (re.compile(r"\b(at=)[0-9][0-9A-Za-z%.:+-]*"), r"\1TIMESTAMP"),
    (re.compile(r'(<time datetime="TIMESTAMP">)[0-9:]+(</time>)'), r"\1TIME\2"),
)


def normalise(text: str) -> str:
    """``text`` with tokens, nonces, static hashes and dates and times replaced by
    placeholders."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


# An inline script this long (plotly.js in a self-contained HTML report) is kept as its digest.
LONG_SCRIPT = 20_000
_SCRIPT = re.compile(r"(<script[^>]*>)(.*?)(</script>)", re.S)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _short_scripts(text: str) -> str:
    def shortened(match: re.Match[str]) -> str:
        script = match.group(2)
        if len(script) < LONG_SCRIPT:
            return match.group(0)
        kept = f"[{len(script)} characters, sha256 {_digest(script)}]"
        return match.group(1) + kept + match.group(3)

    return _SCRIPT.sub(shortened, text)


def rendered(status: int, headers: dict[str, str], body: bytes) -> str:
    """The status, the headers a download is judged by, and the body, normalised. A JSON body
    is shown indented (so a diff points at the value) under the digest of its exact bytes."""
    head = [f"status: {status}"]
    for name in ("Content-Type", "Content-Disposition", "Location"):
        if name in headers:
            head.append(f"{name.lower()}: {headers[name]}")
    text = normalise(_short_scripts(body.decode("utf-8", errors="backslashreplace")))
    if headers.get("Content-Type", "").startswith("application/json"):
        try:
            shown = json.dumps(json.loads(text), indent=1, ensure_ascii=False)
        except ValueError:
            shown = text
        head.append(f"sha256 of the exact body: {_digest(text)}")
        text = shown + "\n"
    return "\n".join(head) + "\n\n" + text


def _get(client: Client, url: str) -> tuple[str, str]:
    response = client.get(url)
    body = (
        b"".join(response.streaming_content)
        if getattr(response, "streaming", False)
        else response.content
    )
    headers = {
        name: response[name]
        for name in ("Content-Type", "Content-Disposition")
        if response.has_header(name)
    }
    if response.has_header("Location"):
        headers["Location"] = response["Location"]
    return rendered(response.status_code, headers, body), headers.get("Content-Type", "")


def crawl(client: Client) -> Iterator[tuple[str, str]]:
    """(url, normalised response) of every page reachable from ``SEEDS``, breadth first."""
    queue, seen = deque(SEEDS), set(SEEDS)
    variants: dict[str, int] = {}
    while queue and len(seen) <= MAX_PAGES:
        url = queue.popleft()
        text, content_type = _get(client, url)
        yield url, text
        if not content_type.startswith("text/html"):
            continue
        for link in links(url, text.split("\n\n", 1)[1]):
            if link in seen or SKIPPED.match(link):
                continue
            path = link.split("?", 1)[0]
            if "?" in link:
                if variants.get(path, 0) >= VARIANTS_PER_PATH:
                    continue
                variants[path] = variants.get(path, 0) + 1
            seen.add(link)
            queue.append(link)


# ---- The API's collection endpoints, from the URL patterns --------------------------------


def _routes(patterns: list, prefix: str = "") -> Iterator[tuple[str, str]]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and entry.name:
            yield prefix + str(entry.pattern), entry.name


def api_urls() -> list[str]:
    """Every GET endpoint of ``/api/v1/collections/<name>/...`` for every collection (and
    topic, where the route names one), CSV where it offers CSV, the lists, and every
    ``/api/v1/campaigns/<slug>/...`` endpoint for every campaign."""
    from annotation.models import Campaign
    from crux_app.models import Collection

    routes = list(_routes(get_resolver().url_patterns))
    urls = [
        f"/{route}"
        for route, _ in routes
        if re.fullmatch(r"api/v1/[a-z-]+/", route) and not SKIPPED.match(f"/{route}")
    ]
    by_collection = sorted(
        {
            name
            for route, name in routes
            # The audit trail records when the demo was loaded, not a figure of it.
            if route.startswith("api/v1/collections/<str:name>/") and not route.endswith("/audit/")
        }
    )
    for collection in Collection.objects.order_by("name"):
        topics = list(
            collection.topics.order_by("external_id").values_list("external_id", flat=True)
        )
        for name in by_collection:
            try:
                urls.append(reverse(name, kwargs={"name": collection.name}))
            except NoReverseMatch:
                for topic in topics:
                    try:
                        urls.append(reverse(name, kwargs={"name": collection.name, "topic": topic}))
                    except NoReverseMatch:
                        break
    urls += [f"{u}?format=csv" for u in urls if u.endswith(("/judgments/", "/qrels/"))]
    by_campaign = sorted(
        {name for route, name in routes if route.startswith("api/v1/campaigns/<slug:slug>/")}
    )
    for slug in Campaign.objects.order_by("slug").values_list("slug", flat=True):
        for name in by_campaign:
            try:
                urls.append(reverse(name, kwargs={"slug": slug}))
            except NoReverseMatch:
                continue  # a route that names an item too
    return urls


# ---- Exports written by the commands (CRUX formats, nuggetizer JSONL, campaign files) ------


def _command_output(command: str, *args: str, out_flag: str | None = None) -> str:
    """The file the command writes (``out_flag`` names its output option, else the last
    positional argument), or its refusal."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        argv = [*args, out_flag, str(out)] if out_flag else [*args, str(out)]
        try:
            call_command(command, *argv, stdout=StringIO(), stderr=StringIO())
        except CommandError as error:
            return f"refused: {error}\n"
        return normalise(out.read_text(encoding="utf-8")) if out.exists() else "no file\n"


def command_exports() -> Iterator[tuple[str, str]]:
    """(name, normalised file) of each export command the checkout has, for the demo."""
    from annotation.models import Campaign
    from crux_app.models import Collection, Judge

    commands = get_commands()
    for collection in Collection.objects.order_by("name"):
        judges = (
            Judge.objects.filter(judgments__topic__collection=collection)
            .distinct()
            .order_by("name")
            .values_list("name", flat=True)
        )
        for judge in judges:
            for fmt in ("qrels", "qlabels"):
                yield (
                    f"export_labels/{collection.name}/{judge}.{fmt}.jsonl",
                    _command_output(
                        "export_labels",
                        "--collection",
                        collection.name,
                        "--judge",
                        judge,
                        "--format",
                        fmt,
                    ),
                )
        if "export_nuggets" not in commands:
            continue
        for command in ("export_nuggets", "export_answers"):
            yield (
                f"{command}/{collection.name}.jsonl",
                _command_output(command, "--collection", collection.name, out_flag="--output"),
            )
        assigned = (
            Judge.objects.filter(nugget_assignments__output__collection=collection)
            .distinct()
            .order_by("name")
            .values_list("name", flat=True)
        )
        for judge in assigned:
            yield (
                f"export_nugget_assignments/{collection.name}/{judge}.jsonl",
                _command_output(
                    "export_nugget_assignments",
                    "--collection",
                    collection.name,
                    "--judge",
                    judge,
                    out_flag="--output",
                ),
            )
    for slug in Campaign.objects.order_by("slug").values_list("slug", flat=True):
        for fmt in ("csv", "annotators", "qrels", "qlabels"):
            extra = ("--annotator", "annotator") if fmt in ("qrels", "qlabels") else ()
            yield (
                f"export_campaign/{slug}.{fmt}",
                _command_output("export_campaign", "--campaign", slug, "--format", fmt, *extra),
            )


# ---- Loading the demo with the same primary keys every time -------------------------------


def load_demo_with_fixed_ids() -> None:
    """Empty the project's tables with their id sequences restarted, then load the demo as
    ``scripts/demo.sh`` does (``load_demo``, ``demo_campaign``): the same ids every run,
    whatever ran before. Call inside a transaction to leave the database as it was."""
    kept = {"django_migrations", "django_content_type", "auth_permission", "django_site"}
    tables = [t for t in connection.introspection.table_names() if t not in kept]
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE "
            + ", ".join(connection.ops.quote_name(t) for t in tables)
            + " RESTART IDENTITY CASCADE"
        )
    call_command("load_demo", stdout=StringIO())
    call_command("demo_campaign", stdout=StringIO())


def snapshots(client: Client) -> Iterator[tuple[str, str]]:
    """(url or export name, normalised text) of every page, API answer and export (an API
    route that takes only POST, such as starting a job, is left out)."""
    yield from crawl(client)
    for url in api_urls():
        text = _get(client, url)[0]
        if not text.startswith("status: 405"):
            yield url, text
    yield from command_exports()


def golden_name(key: str) -> str:
    """A file name for a page's golden: its path and query, with ``/`` as ``__``."""
    name = re.sub(r"[^A-Za-z0-9._=-]+", "_", key.strip("/").replace("/", "__")) or "home"
    return name[:180] + ".txt"
