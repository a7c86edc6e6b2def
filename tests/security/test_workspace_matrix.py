"""Every URL pattern and API route, from the URL resolver, asked by each role of two workspaces:
A's researcher (member), A's viewer, B's researcher (outsider), an annotator invited to A's crowd
campaign, nobody (anonymous), and on the API a token narrowed to B and a read-only token of A's
member. Each answer is what the role may get (tests/security/workspace_matrix_rules.py), never
shows the other workspace's names, and a write refused (a viewer's 403, an outsider's 404)
changes no row of any table.

Paths are filled with A's objects (tests/security/url_patterns.py): for each route, the first
of A's collections whose objects let A's member (the annotator, at an annotator's door) in.
One test per role lists every door that answered it wrongly.
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponseBase
from django.shortcuts import resolve_url
from django.test import Client, override_settings

from tests.security.url_fuzzing import PROBE, recording_reads
from tests.security.url_patterns import Route, routes
from tests.security.workspace_matrix_data import ROLES, A, B, Site, make_site
from tests.security.workspace_matrix_rules import (
    EXEMPT,
    FORMS,
    LISTS,
    LOGIN,
    QUERY_KINDS,
    REDIRECT,
    door,
    expected_read,
    expected_write,
    writes,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def site(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The two workspaces, made once for the module in a transaction rolled back after it
    (each test's own transaction is a savepoint inside)."""
    export_dir = tmp_path_factory.mktemp("exports")
    with django_db_blocker.unblock(), override_settings(API_EXPORT_DIR=export_dir):
        outer = transaction.atomic()
        outer.__enter__()
        try:
            made = make_site(export_dir)
            made.worlds_by_route, made.unplaced = _place(made)
            yield made
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            cache.clear()  # pages cached for A's objects, which are gone


def _answer(response: HttpResponseBase) -> int | str:
    if 300 <= response.status_code < 400:
        login = resolve_url("login")
        return LOGIN if response["Location"].startswith(login) else REDIRECT
    return response.status_code


def _text(response: HttpResponseBase) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")


def _send(site: Site, client: Client, method: str, url: str, body: object):  # noqa: ANN202
    """(answer, body text, tables changed) of one request, rolled back after it."""
    json_body = url.startswith("/api/") or method in ("put", "patch", "delete")
    extra = {"content_type": "application/json"} if json_body and method != "get" else {}
    with transaction.atomic():
        try:
            response = getattr(client, method)(url, body, **extra)
        except Exception as error:  # noqa: BLE001 - a crash is one finding
            transaction.set_rollback(True)
            return f"{type(error).__name__}: {str(error)[:120]}", "", []
        changed = site.changed_tables() if method != "get" else []
        transaction.set_rollback(True)
    return _answer(response), _text(response), changed


def _place(site: Site) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Each route's world: the first whose objects let its owner in (A's member, or the invited
    annotator at an annotator's door); the routes that let the owner in nowhere."""
    placed, unplaced = {}, []
    for route in routes():
        kind = door(route)
        if not route.params() or kind in ("exempt", "unclassified"):
            continue
        owner = site.clients["annotator" if kind == "annotate" else "member"]
        method = "get" if "get" in route.methods else route.methods[0]
        tried = set()
        for world in site.worlds:
            url = route.path(world)
            if url in tried:
                continue
            tried.add(url)
            answer, _, _ = _send(site, owner, method, url, _body(site, route, method))
            if answer not in (404, 405):
                placed[route.name] = world
                break
        else:
            placed[route.name] = site.worlds[0]
            unplaced.append(f"{method.upper()} {route.route} [{route.name}] -> 404 everywhere")
    return placed, unplaced


def _body(site: Site, route: Route, method: str) -> object:
    """A write's body: nothing for a door whose path names A's object; for a list or form,
    A's first collection (and workspace) in the fields such bodies name them by."""
    if method == "get" or route.params():
        return {}
    world = site.worlds[0]
    name = unquote(world["collection_name"])
    if route.route.startswith("api/"):
        return {
            "collection": name, "workspace": unquote(world["workspace_name"]),
            "name": f"{A}-made", "kind": "qrels", "format": "csv",
            "params": {"collection": name}, "campaign": world["slug"],
        }  # fmt: skip
    return {"collection": world["collection"], "collection_name": name, "name": f"{A}-made"}


def _forbidden(site: Site, route: Route, role: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names ``role`` may not see in an answer of ``route``, and those it may (taken out
    of the answer first: one name may hold another)."""
    if route.name in EXEMPT and not EXEMPT[route.name].leak_checked:
        return (), ()
    a, b = site.secrets[A], site.secrets[B]
    if role in ("member", "viewer", "read-only-token"):
        return b, a
    if role == "annotator":
        if door(route) == "annotate":
            return b, a
        invited = (site.invited_campaign,)
        return tuple(s for s in a if s not in invited) + b, invited
    return (a, b) if role in ("outsider", "narrowed-token") else (a + b, ())


def _check(site: Site, role: str, route: Route, method: str, expected: frozenset) -> list[str]:
    """The findings of one request: an answer the role may not get, another workspace's name
    in it, a row a refused write changed, a list that fails its control."""
    world = site.worlds_by_route.get(route.name, site.worlds[0])
    url = route.path(world) if route.params() else "/" + route.route
    body = _body(site, route, method)
    answer, text, changed = _send(site, site.clients[role], method, url, body)
    where = f"{role} {method.upper()} {url} [{route.name}]"
    found = []
    if answer not in expected:
        found.append(f"{where} -> {answer} (expected {', '.join(sorted(map(str, expected)))})")
    control = role == "member" and method == "get" and door(route) == "list"
    if control and LISTS[route.name].shows_a and not any(s in text for s in site.secrets[A]):
        found.append(f"{where} -> {answer} shows none of A's names (the control)")
    forbidden, allowed = _forbidden(site, route, role)
    asked = unquote(url) + repr(body)  # a 404 may repeat the name asked for
    for name in allowed:
        text, asked = text.replace(name, ""), asked.replace(name, "")
    if leaked := [s for s in forbidden if s in text and s not in asked]:
        found.append(f"{where} -> {answer} shows {leaked[0]!r}")
    if changed:
        found.append(f"{where} -> {answer} changed {', '.join(changed)}")
    return found


def test_every_route_is_a_known_door_or_exempt():
    """A new route without parameters is declared as a list, a form or an exemption (a route
    with parameters is classified by them; an unknown parameter fails in url_patterns)."""
    found = routes()
    unclassified = [f"{r.route} [{r.name}]" for r in found if door(r) == "unclassified"]
    assert not unclassified, "declare these in workspace_matrix_rules.py:\n" + "\n".join(
        unclassified
    )
    names = {r.name for r in found}
    stale = sorted((set(LISTS) | set(FORMS) | set(EXEMPT)) - names)
    assert not stale, f"declared but no longer routes: {stale}"
    kinds = {door(r) for r in found}
    assert {"collection", "annotate", "review", "owner", "workspace", "list"} <= kinds


@pytest.mark.parametrize("role", ROLES)
def test_each_door_answers_the_role_what_it_may(site, role):
    failures = list(site.unplaced) if role == "member" else []
    checked = 0
    for route in routes():
        for method, allowed in (
            ("get", expected_read(route, role)),
            *((m, expected_write(route, role)) for m in writes(route)),
        ):
            if allowed is not None:
                failures += _check(site, role, route, method, allowed)
                checked += 1
    assert checked > 30, f"only {checked} requests: the resolver walk lost its routes"
    assert not failures, f"{len(failures)} findings in {checked} requests as {role}:\n" + (
        "\n".join(failures)
    )


def test_a_query_naming_as_objects_tells_an_outsider_nothing(site):
    """Lists and forms that read an object from the query (``?collection=``, ``?campaign=``,
    found by recording what each reads) answer B's researcher naming one of A's objects as
    they answer naming none, and show none of A's names."""
    outsider = site.clients["outsider"]
    failures, checked = [], 0
    for route in routes():
        if door(route) not in ("list", "form") or "get" not in route.methods:
            continue
        url = "/" + route.route
        with recording_reads() as read:
            _send(site, outsider, "get", url, {PROBE: "1"})
        for name in sorted(read & set(QUERY_KINDS)):
            values = {unquote(w[kind]) for w in site.worlds for kind in QUERY_KINDS[name]}
            for value in sorted(values):
                nothing = "999999999" if value.isdigit() else "no-such-thing"
                unknown, unknown_text, _ = _send(site, outsider, "get", url, {name: nothing})
                answer, text, _ = _send(site, outsider, "get", url, {name: value})
                checked += 1
                where = f"outsider GET {url}?{name}={value} [{route.name}] -> {answer}"
                if answer != unknown:
                    failures.append(f"{where} (naming nothing: {unknown})")
                # A name may be repeated as asked (a filter's field), as often as an unknown one.
                echoes = (text.count(value), unknown_text.count(nothing))
                if not value.isdigit() and echoes[0] != echoes[1]:
                    failures.append(
                        f"{where} names it {echoes[0]} times (an unknown name: {echoes[1]})"
                    )
                if leaked := [s for s in site.secrets[A] if s in text and s != value]:
                    failures.append(f"{where} shows {leaked[0]!r}")
    assert checked > 5, f"only {checked} queries: the lists read none of {sorted(QUERY_KINDS)}"
    assert not failures, f"{len(failures)} findings in {checked} queries:\n" + "\n".join(failures)
