"""What each role may get at each door: the one declaration the workspace matrix checks
(tests/security/test_workspace_matrix.py).

A route with path parameters is classified by them: ``annotate/`` doors are for the invited
annotators, ``review/`` doors for the review campaign's reviewers and the workspace's
researchers, a webhook's or delivery's for its maker, a workspace's for its members, and any
other (a collection, topic, job, export, crowd or review campaign, analysis) for the members of
the collection's workspace. A route without parameters must be declared below, as a list, a
form, or an exemption with its reason; a new one that is none of these fails the matrix.

Where the issue leaves a door's answer open, the choice follows Label Studio and Argilla:
a viewer may read every page of a workspace but not open the pages that only start or change
something (403, the workspace is known to them); webhooks are their maker's (a viewer gets
403 or 404); a workspace's other members and outsiders are never invited annotators.
"""

from __future__ import annotations

from typing import NamedTuple

from tests.security.url_patterns import WRITE_METHODS, Route

LOGIN = "login"  # a redirect to the login page
REDIRECT = "redirect"  # any other redirect
OK = frozenset({200, 400, REDIRECT})  # let in (400: a form's or a query's own complaint)
HIDDEN = frozenset({404})
REFUSED = frozenset({403, 404})
ANONYMOUS_PAGE = frozenset({LOGIN})  # a page sends nobody to the login
ANONYMOUS_API = frozenset({401, 403})


class Listed(NamedTuple):
    """A page or endpoint without parameters that lists what the account may see."""

    annotators: bool = False  # an annotator's own list (else researchers': 403 to annotators)
    shows_a: bool = False  # A's member sees one of A's names in it (the check's own control)


LISTS: dict[str, Listed] = {
    "home": Listed(annotators=True),  # each account's landing page (annotators: /annotate/)
    "collection-list": Listed(shows_a=True),
    "job-list": Listed(shows_a=True),
    "job-table": Listed(shows_a=True),
    "workspace-list": Listed(shows_a=True),
    "api-collections": Listed(shows_a=True),
    "api-jobs": Listed(),
    "api-result-tables": Listed(),
    "api-workspaces": Listed(shows_a=True),
    "api-campaigns": Listed(shows_a=True),
    "api-review-campaigns": Listed(shows_a=True),
    "webhook-list": Listed(shows_a=True),
    "campaign-list": Listed(shows_a=True),
    "review-campaign-list": Listed(shows_a=True),
    "annotation-home": Listed(annotators=True),
    "api-my-campaigns": Listed(annotators=True),
    "review-home": Listed(annotators=True),
}
# Pages and endpoints without parameters that make something in a collection the body names;
# their choices name only what the account may change.
FORMS = frozenset({
    "upload", "api-exports", "webhook-create", "campaign-create", "campaign-preview",
    "review-campaign-create", "review-campaign-count",
})  # fmt: skip
# Writes that only read: an export or archive of what a viewer may read is the viewer's to
# make (the viewer is "read only": nothing of the collection changes); only the job
# that writes the file is made.
READ_POSTS: dict[str, str] = {
    "api-exports": "an export job's file of rows the account may read",
    "api-collection-archive": "an archive job's file of a collection the account may read",
    "collection-archive": "the same archive, from the collection's page",
}


# Query parameters a list or form may read an object of A's from, and the kinds of path value
# (tests/security/url_patterns.py) each may hold: by id and by name.
QUERY_KINDS: dict[str, tuple[str, ...]] = {
    "collection": ("collection", "collection_name"),
    "campaign": ("campaign", "slug"),
    "topic": ("topic", "topic_name"),
    "job": ("job",),
    "review": ("review_campaign", "review_slug"),
    "workspace": ("workspace", "workspace_name"),
}


class Exempt(NamedTuple):
    why: str
    leak_checked: bool = True  # still must not show another workspace's names


EXEMPT: dict[str, Exempt] = {
    "favicon": Exempt("a static file"),
    "api-schema": Exempt("the API's description: the same for everyone, no data"),
    "api-docs": Exempt("the API's documentation page: no data"),
    "api-redoc": Exempt("the API's documentation page: no data"),
    "api-tokens": Exempt("the account's own tokens (tests/api/test_tokens.py)"),
    "annotation-prolific": Exempt(
        "a Prolific study's public arrival link: whoever holds it is admitted, by design",
        leak_checked=False,
    ),
}
# Django's own login, password and admin views are left out by url_patterns.SKIPPED_PREFIXES:
# the first hold no workspace data; the admin is for staff, and its narrowing per workspace for
# staff who are not superusers needs a test of its own.


def door(route: Route) -> str:
    """The route's kind of door: annotate, review, owner, workspace, collection, a declared
    list / form / exempt, or unclassified."""
    if route.name in EXEMPT:
        return "exempt"
    kinds = {kind for _, _, kind in route.params()}
    if not kinds:
        return "list" if route.name in LISTS else "form" if route.name in FORMS else "unclassified"
    if route.route.startswith(("annotate/", "api/v1/annotate/")):
        return "annotate"
    if route.route.startswith("review/"):
        return "review"
    if kinds & {"webhook", "delivery"}:
        return "owner"
    if kinds & {"workspace", "workspace_name"}:
        return "workspace"
    return "collection"


def writes(route: Route) -> tuple[str, ...]:
    return tuple(m for m in route.methods if m in WRITE_METHODS)


def anonymous(route: Route) -> frozenset:
    """Nobody's answer: the login page, the API's 401/403; an annotator's door may say 404
    (a campaign is looked up among the account's invitations, of which nobody has any)."""
    if route.route.startswith("api/"):
        return ANONYMOUS_API
    return ANONYMOUS_PAGE | HIDDEN if door(route) == "annotate" else ANONYMOUS_PAGE


def as_token(route: Route, role: str) -> str | None:
    """The role a token's request is judged as: a token narrowed to B as B's researcher, a
    read-only one as its holder, A's member (None: a page, which takes no token)."""
    if not route.route.startswith("api/"):
        return None
    return {"narrowed-token": "outsider", "read-only-token": "member"}.get(role, role)


def expected_read(route: Route, role: str) -> frozenset | None:
    """What a GET of ``route`` by ``role`` may answer (None: not asked)."""
    kind = door(route)
    if role.endswith("-token"):
        judged = as_token(route, role)
        return None if judged is None else expected_read(route, judged)
    if "get" not in route.methods or kind == "unclassified":
        return None
    if kind == "exempt":
        return OK | REFUSED | ANONYMOUS_PAGE | ANONYMOUS_API  # all but a 5xx (and a leak)
    annotators = kind == "annotate" or (kind == "list" and LISTS[route.name].annotators)
    if role == "anonymous":
        return anonymous(route)
    if role == "annotator":
        return OK if annotators else REFUSED
    if kind == "annotate":
        return HIDDEN  # researchers, viewers and outsiders are not invited
    if kind in ("list", "form"):
        # Everyone of a workspace lists their own (an outsider gets 200 without A's names).
        starts = role == "viewer" and kind == "form"
        return OK | {403} if starts else OK
    if role == "outsider":
        return HIDDEN
    if role == "member":
        return OK
    # A's viewer: reads; a page that also starts or changes something (or a part of a start
    # page's form, under ``start/``) may say 403, as may a reviewer's page.
    if kind == "owner":
        return REFUSED
    starts = writes(route) or "/start/" in route.route or kind == "review"
    return OK | {403} if starts else OK


def expected_write(route: Route, role: str) -> frozenset | None:
    """What a write (POST, PUT, PATCH, DELETE) of ``route`` by ``role`` may answer, naming
    A's objects (None: not asked; A's member's writes are theirs to make)."""
    kind = door(route)
    if not writes(route) or kind in ("exempt", "unclassified") or role == "member":
        return None
    if role == "read-only-token" and as_token(route, role):
        # Reads only, exports too (at an annotator's door: refused first, or not invited).
        return REFUSED if kind == "annotate" else frozenset({403})
    if role.endswith("-token"):
        judged = as_token(route, role)
        return None if judged is None else expected_write(route, judged)
    if role == "viewer" and route.name in READ_POSTS:
        return None
    if role == "anonymous":
        return anonymous(route)
    if kind == "annotate":
        return None if role == "annotator" else HIDDEN
    if role == "annotator":
        return REFUSED
    if kind in ("list", "form"):
        return frozenset({400, 403, 404})  # refused, or the named collection is no choice
    if role == "outsider":
        return HIDDEN
    return REFUSED if kind == "owner" else frozenset({403})
