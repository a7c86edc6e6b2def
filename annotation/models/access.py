"""A researcher's lookup of one campaign, review campaign or aggregation: 404 when its
collection is in none of the asker's workspaces, 403 for a write by one who may only read it
(``crux_app.access``'s rule, for the annotation tables)."""

from __future__ import annotations

from django.apps import apps
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest

from annotation.models.campaign import visible_collections
from crux_app.access import require_write
from crux_app.access_scope import Access, AccessUser, as_access


def visible_or_404(
    who: Access | AccessUser | HttpRequest,
    rows: QuerySet,
    *,
    write: bool = False,
    **lookup: object,
) -> Model:
    """The row of ``rows`` (a queryset with ``visible_to``) matching ``lookup`` that ``who`` may
    see, with its collection (404 otherwise); with ``write``, 403 when ``who`` may only read."""
    access = as_access(who)
    if isinstance(lookup.get("slug"), str):
        lookup["slug"] = lookup["slug"].replace("\x00", "")
    found = rows.visible_to(access).select_related("collection__workspace").filter(**lookup).first()
    if found is None:
        raise Http404(f"No such {rows.model._meta.verbose_name}.")
    if write:
        require_write(access, found.collection)
    return found


def writable_collections(who: object) -> QuerySet:
    """The collections ``who`` may change (the choice of a new campaign, review or
    aggregation); every one for the operator (``who`` None: a command, a test)."""
    if who is None:
        return apps.get_model("crux_app", "Collection").objects.all()
    return visible_collections(who, write=True)
