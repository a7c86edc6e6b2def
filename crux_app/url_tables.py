"""URL tables as data: a ``urls.py`` lists (route, view class, name) rows, and the rows of one
object's actions (``.../<int:pk>/cancel/``, ``.../retry/``) once, instead of spelling
``path(route, View.as_view(), name=...)`` around every route."""

from __future__ import annotations

from collections.abc import Mapping

from django.urls import URLPattern, path
from django.views import View

Route = tuple[str, type[View], str]  # (route, view class, URL name)


def view_paths(*rows: Route) -> list[URLPattern]:
    """One ``path`` per row, the view class made a view."""
    return [path(route, view.as_view(), name=name) for route, view, name in rows]


def action_paths(
    prefix: str, name_prefix: str, actions: Mapping[str, type[View]]
) -> list[URLPattern]:
    """``prefix`` + ``action/`` for each action, named ``name_prefix`` + the action."""
    return view_paths(
        *(
            (f"{prefix}{action}/", view, f"{name_prefix}{action}")
            for action, view in actions.items()
        )
    )
