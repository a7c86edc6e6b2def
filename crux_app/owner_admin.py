"""Admin pages of rows that belong to one account (webhooks, their deliveries, API tokens,
export files): a staff account sees, changes and deletes only its own; a superuser every one.

Django's model permissions say what a staff account may do to a kind of row; they do not say
whose rows. ``OwnerScopedAdmin`` narrows the list, every object page and the bulk actions to the
rows whose ``owner_field`` (a lookup path to the owning user) is the signed-in account, so
another owner's row is "not found", as on the researcher pages.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest


class OwnerScopedAdmin(admin.ModelAdmin):
    owner_field: str = "created_by"  # e.g. "user", "endpoint__created_by"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        owned = rows.filter(**{self.owner_field: request.user})
        return owned.distinct() if "__" in self.owner_field else owned

    def owns(self, request: HttpRequest, obj: Model | None) -> bool:
        """Whether the account may act on ``obj`` (None: on the kind of row, as Django asks)."""
        if obj is None or request.user.is_superuser:
            return True
        return self.get_queryset(request).filter(pk=obj.pk).exists()

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_view_permission(request, obj) and self.owns(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_change_permission(request, obj) and self.owns(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return super().has_delete_permission(request, obj) and self.owns(request, obj)
