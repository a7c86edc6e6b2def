"""Links that methods and cross-method pages add to the collection and topic pages.

Shared templates name no method: a method declares ``PageLink`` entries in its app's
declaration (crux_app.method_config) and the collection and topic pages list them. A link may
POST (a one-click job start with hidden fields) or simply open a page.

A page lists its links in declaration order (``INSTALLED_APPS``, then each declaration's),
moved by the keys a link names in ``after`` and ``before``; the job-starting buttons (links with
``post_fields``) come after the plain links.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal

from django.urls import reverse

from crux_app.registry import Registry

# The collection and topic pages, and the cross-method pages that list their own links.
Place = Literal["collection", "topic", "leaderboard", "agreement"]


@dataclass(frozen=True)
class PageLink:
    key: str
    label: str
    url_name: str
    place: Place
    after: tuple[str, ...] = ()  # keys of the links it comes after
    before: tuple[str, ...] = ()  # keys of the links it comes before
    title: str = ""  # the hover text
    # A POST form with these hidden fields instead of a plain link (a one-click job start).
    post_fields: Mapping[str, str] = field(default_factory=dict)
    # Only shown where this says so, given the page being rendered (crux_app.queries'
    # CollectionPage or TopicPage), e.g. report judging on topics with reports.
    shown: Callable[[Any], bool] | None = None
    # The URL takes the collection only (a collection-level start page linked from a topic).
    collection_url: bool = False


@dataclass(frozen=True)
class ResolvedLink:
    key: str
    label: str
    url: str
    title: str
    post_fields: tuple[tuple[str, str], ...]


def _comes_after(link: PageLink) -> tuple[str, ...]:
    """The links a link follows: those it names in ``after``, and, for a job-starting button
    (``post_fields``), every plain link too."""
    if not link.post_fields:
        return link.after
    return link.after + tuple(key for key, other in _LINKS.items() if not other.post_fields)


_LINKS: Registry[PageLink] = Registry(
    "page link", (PageLink,), needs=_comes_after, precedes=attrgetter("before")
)


def links_for(
    place: Place, collection_pk: int, topic: Any | None = None, page: Any | None = None
) -> list[ResolvedLink]:
    """The registered links of one page, resolved to URLs, in order."""
    resolved = []
    for link in _LINKS.ordered():
        if link.place != place:
            continue
        if link.shown is not None and not link.shown(page):
            continue
        on_topic = place == "topic" and not link.collection_url
        args = [collection_pk, topic.pk] if on_topic else [collection_pk]
        fields = {
            # {topic}: the topic's pk; {topic_id}: its id in the collection (external_id).
            name: value.format(
                topic=getattr(topic, "pk", ""), topic_id=getattr(topic, "external_id", "")
            )
            for name, value in link.post_fields.items()
        }
        resolved.append(
            ResolvedLink(
                key=link.key,
                label=link.label,
                url=reverse(link.url_name, args=args),
                title=link.title,
                post_fields=tuple(fields.items()),
            )
        )
    return resolved
