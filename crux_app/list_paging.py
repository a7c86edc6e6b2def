"""Paging and search of a long list on a page: a bounded GET form (``q``, ``page``, ``size``)
and the page of rows it selects, with the links that keep the request's other parameters.

Several lists on one page take a form prefix each (``topics-page``, ``judges-q``). A value the
form refuses (a page of ``abc`` or ``0``, a size not offered, a control character in the
search) is the view's 400; a page past the last one shows the last page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.core.paginator import Page, Paginator
from django.http import HttpResponse, QueryDict

PAGE_SIZES = (25, 50, 100, 200)
DEFAULT_PAGE_SIZE = 50
MAX_PAGE = 1_000_000
MAX_QUERY_CHARS = 200


def _no_control_characters(value: str) -> None:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise forms.ValidationError("The search may not contain control characters.")


class ListPageForm(forms.Form):
    """Which page of a list, how many rows per page, and the search text (all optional)."""

    q = forms.CharField(
        required=False,
        max_length=MAX_QUERY_CHARS,
        label="Search",
        validators=[_no_control_characters],
        widget=forms.TextInput(attrs={"type": "search", "size": 24}),
    )
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)
    size = forms.TypedChoiceField(
        required=False,
        choices=[(str(n), str(n)) for n in PAGE_SIZES],
        coerce=int,
        empty_value=None,
        label="Rows per page",
    )

    def __init__(self, data: QueryDict, *, prefix: str | None = None, **kwargs: Any) -> None:
        super().__init__(data, prefix=prefix, **kwargs)

    def search_text(self) -> str:
        return self.cleaned_data.get("q") or ""

    def page_number(self) -> int:
        return self.cleaned_data.get("page") or 1

    def page_size(self, default: int = DEFAULT_PAGE_SIZE) -> int:
        return self.cleaned_data.get("size") or default


@dataclass(frozen=True)
class ListPage:
    """One page of a list, with what the page's pager and search form need."""

    page: Page
    query: str  # the search text in use ("" for none)
    size: int
    prefix: str  # "" or "<prefix>-", before each field name
    others: tuple[tuple[str, str], ...]  # the request's other parameters, kept by every link
    default_size: int = DEFAULT_PAGE_SIZE

    @property
    def rows(self) -> list:
        return list(self.page.object_list)

    @property
    def count(self) -> int:
        return self.page.paginator.count

    def field(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def url(self, number: int) -> str:
        """The query string of page ``number`` of the same list (same search and size)."""
        params = list(self.others)
        if self.query:
            params.append((self.field("q"), self.query))
        if self.size != self.default_size:
            params.append((self.field("size"), str(self.size)))
        if number > 1:
            params.append((self.field("page"), str(number)))
        return "?" + urlencode(params)

    @property
    def previous_url(self) -> str | None:
        return self.url(self.page.previous_page_number()) if self.page.has_previous() else None

    @property
    def next_url(self) -> str | None:
        return self.url(self.page.next_page_number()) if self.page.has_next() else None

    @property
    def first_url(self) -> str:
        return self.url(1)

    @property
    def last_url(self) -> str:
        return self.url(self.page.paginator.num_pages)

    @property
    def sizes(self) -> tuple[int, ...]:
        return PAGE_SIZES


def list_form(data: QueryDict, prefix: str | None = None) -> ListPageForm:
    """The paging form of one list of a page, bound to the request's GET parameters."""
    return ListPageForm(data, prefix=prefix)


def list_page(
    form: ListPageForm,
    rows: Sequence | Any,
    *,
    search: Callable[[Any, str], Any] | None = None,
    default_size: int = DEFAULT_PAGE_SIZE,
    count: int | None = None,
) -> ListPage:
    """The page of ``rows`` (a queryset or a list) the valid ``form`` selects; ``search(rows,
    text)`` narrows them to a non-empty search text first. ``count``: the number of ``rows``
    when the caller knows it already (used only without a search; saves a COUNT query)."""
    text = form.search_text()
    if text and search is not None:
        rows, count = search(rows, text), None
    paginator = Paginator(rows, form.page_size(default_size))
    if count is not None:
        paginator.count = count  # Paginator.count is a cached property: this is its value
    return listing_of(form, paginator.get_page(form.page_number()), default_size)


def listing_of(form: ListPageForm, page: Page, default_size: int = DEFAULT_PAGE_SIZE) -> ListPage:
    """The ``ListPage`` of a page a service paginated itself with the valid ``form``'s values."""
    # A subclass's own fields (a filter) are among the others: links keep them.
    own = {form.add_prefix(name) for name in ListPageForm.base_fields}
    others = tuple(
        (key, value) for key, values in form.data.lists() if key not in own for value in values
    )
    prefix = f"{form.prefix}-" if form.prefix else ""
    size = form.page_size(default_size)
    return ListPage(page, form.search_text(), size, prefix, others, default_size)


def refused(*forms_: forms.Form) -> HttpResponse | None:
    """A plain-text 400 naming the refused parameters of any invalid form, else None."""
    errors = [
        f"{form.add_prefix(name)}: {' '.join(messages)}"
        for form in forms_
        if not form.is_valid()
        for name, messages in form.errors.items()
    ]
    if not errors:
        return None
    return HttpResponse("\n".join(errors), status=400, content_type="text/plain; charset=utf-8")
