"""Pages of long lists: ``?page=N&page_size=M`` (at most ``MAX_PAGE_SIZE``); a page past the
end or a malformed number is a 400 naming ``page``."""

from __future__ import annotations

from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

from api.errors import field_error
from crux_app.client_input import InputRefused, whole_number

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 10_000
MAX_PAGE_NUMBER = 999_999_999


class ApiPagination(PageNumberPagination):
    page_size = DEFAULT_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def paginate_queryset(self, queryset, request, view=None):
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound as error:  # DRF's answer to a page past the end
            raise field_error("page", str(error.detail)) from None

    def get_page_number(self, request, paginator):
        value = request.query_params.get(self.page_query_param) or "1"
        if value == "last":
            return value
        try:
            return str(whole_number("page", value, 1, MAX_PAGE_NUMBER))
        except InputRefused as error:
            raise field_error("page", error.message) from None
